#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A Kubernetes API server that knows the kinds of contrib/kubernetes and
nothing else, for `kubectl apply --dry-run=client` without a cluster:
kubectl maps each kind through discovery and asks for the live object
(404 here: a create), and never writes anything under client dry-run.

    k8s_stub.py PORTFILE    serves on 127.0.0.1, an ephemeral port written
                            to PORTFILE; ends on SIGTERM
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

RESOURCES = {
    '/api/v1': ('v1', [('namespaces', 'Namespace', False),
                       ('configmaps', 'ConfigMap', True)]),
    '/apis/apps/v1': ('apps/v1', [('daemonsets', 'DaemonSet', True)]),
}


def resource_list(gv, res):
    return {'kind': 'APIResourceList', 'apiVersion': 'v1', 'groupVersion': gv,
            'resources': [{'name': n, 'singularName': '', 'namespaced': ns,
                           'kind': k, 'verbs': ['create', 'get', 'list',
                                                'patch', 'update', 'delete']}
                          for n, k, ns in res]}


class Stub(BaseHTTPRequestHandler):
    def reply(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = self.path.split('?')[0]
        if path == '/api':
            self.reply(200, {'kind': 'APIVersions', 'versions': ['v1']})
        elif path == '/apis':
            self.reply(200, {'kind': 'APIGroupList', 'apiVersion': 'v1',
                             'groups': [{'name': 'apps', 'versions': [
                                 {'groupVersion': 'apps/v1', 'version': 'v1'}],
                                 'preferredVersion': {'groupVersion': 'apps/v1',
                                                      'version': 'v1'}}]})
        elif path in RESOURCES:
            self.reply(200, resource_list(*RESOURCES[path]))
        else:
            self.reply(404, {'kind': 'Status', 'apiVersion': 'v1',
                             'status': 'Failure', 'reason': 'NotFound',
                             'code': 404, 'message': 'not found'})

    def do_POST(self):
        self.reply(405, {'kind': 'Status', 'apiVersion': 'v1',
                         'status': 'Failure', 'code': 405,
                         'message': 'a stub: nothing is written'})

    do_PUT = do_PATCH = do_DELETE = do_POST

    def log_message(self, *args):
        pass


srv = HTTPServer(('127.0.0.1', 0), Stub)
with open(sys.argv[1] + '.tmp', 'w') as f:
    f.write('%d\n' % srv.server_address[1])
os.rename(sys.argv[1] + '.tmp', sys.argv[1])
srv.serve_forever()
