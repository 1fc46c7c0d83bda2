#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Kubernetes manifests of contrib/kubernetes, checked without a
# cluster: yamllint; kubectl kustomize (kubectl parses and builds them);
# kubectl apply --dry-run=client against tests/package/k8s_stub.py (an API
# server that only answers discovery: kubectl maps each kind and plans a
# create); and each object against the Kubernetes schemas of the npm
# package kubernetes-models (types, enums and required fields; it does not
# catch a misspelt key).  What only a cluster checks (admission, the
# node's runtime, the capabilities it grants) is in contrib/README.md.
#
#	tests/package/test_manifests.sh [test_name...]
#
# RFS_K8S_MODELS: a directory with node_modules/kubernetes-models and
# js-yaml (default build/k8s-models, made with npm on the first run).
# Exit: 0 all passed, 249 all skipped, 1 a failure.

# shellcheck disable=SC2317  # the test_* functions are called by name
ALL_TESTS="
	test_yamllint
	test_kustomize
	test_kubectl_dry_run
	test_schemas
"

. "$(dirname "${BASH_SOURCE[0]}")/../lib/lab.sh"

K8S_DIR=$LAB_TOP/contrib/kubernetes
K8S_FILES=("$K8S_DIR"/*.yaml)
K8S_MODELS=${RFS_K8S_MODELS:-$LAB_TOP/build/k8s-models}

test_yamllint()
{
	local out
	lab_need yamllint
	out=$(yamllint -s -f parsable "$K8S_DIR" 2>&1) ||
		fail "yamllint: $out"
	say "yamllint -s: ${#K8S_FILES[@]} files clean"
}

test_kustomize()
{
	local out kinds
	lab_need kubectl
	out=$(kubectl kustomize "$K8S_DIR" 2>&1) || fail "kubectl kustomize: $out"
	kinds=$(sed -n 's/^kind: //p' <<< "$out" | sort | tr '\n' ' ')
	[ "$kinds" = "ConfigMap DaemonSet Namespace " ] ||
		fail "kubectl kustomize built '$kinds', want ConfigMap DaemonSet Namespace"
	say "kubectl kustomize: $kinds"
}

# kubectl apply --dry-run=client -f FILE against the stub; each object
# must come out "created (dry run)".
test_kubectl_dry_run()
{
	local port f out n want
	lab_need kubectl "$LAB_PY"
	lab_trap
	lab_init
	lab_bg "$LAB_PY" "$LAB_TOP/tests/package/k8s_stub.py" "$LAB_DIR/stub.port"
	for ((n = 0; n < 50; n++)); do
		[ -s "$LAB_DIR/stub.port" ] && break
		sleep 0.1
	done
	port=$(cat "$LAB_DIR/stub.port" 2>/dev/null) || fail "the API stub did not start"
	for f in "${K8S_FILES[@]}"; do
		[ "${f##*/}" = kustomization.yaml ] && continue
		out=$(kubectl --server "http://127.0.0.1:$port" --kubeconfig /dev/null \
			apply --dry-run=client --validate=false -f "$f" 2>&1) ||
			fail "kubectl apply --dry-run=client -f ${f##*/}: $out"
		n=$(grep -c 'created (dry run)$' <<< "$out")
		want=$(grep -c '^kind:' "$f")
		[ "$n" = "$want" ] ||
			fail "kubectl planned $n creates of ${f##*/}'s $want objects: $out"
		say "${f##*/}: $(tr '\n' ';' <<< "$out")"
	done
}

# Each object against kubernetes-models' schemas (the OpenAPI ones of the
# Kubernetes API, as JSON Schema).  A copy with a wrong type in it must be
# refused, or the check checks nothing.
test_schemas()
{
	local out bad
	lab_need node npm
	lab_trap
	lab_init
	if [ ! -d "$K8S_MODELS/node_modules/kubernetes-models" ] ||
	   [ ! -d "$K8S_MODELS/node_modules/js-yaml" ]; then
		mkdir -p "$K8S_MODELS" || fail "can't create $K8S_MODELS"
		timeout 300 npm install --prefix "$K8S_MODELS" --no-audit --no-fund \
			--no-save kubernetes-models js-yaml > "$LAB_DIR/npm.log" 2>&1 ||
			skip "npm can't install kubernetes-models here: $(tail -n 2 "$LAB_DIR/npm.log" | tr '\n' ' ')"
	fi
	out=$(NODE_PATH=$K8S_MODELS/node_modules node \
		"$LAB_TOP/tests/package/k8s_validate.js" "${K8S_FILES[@]}" 2>&1) ||
		fail "schema check: $out"
	say "$(grep -c '^ok ' <<< "$out") objects match their schemas"
	bad=$LAB_DIR/bad.yaml
	sed 's/containerPort: 9464/containerPort: "9464x"/' "$K8S_DIR/xdp-rfs.yaml" > "$bad"
	out=$(NODE_PATH=$K8S_MODELS/node_modules node \
		"$LAB_TOP/tests/package/k8s_validate.js" "$bad" 2>&1) &&
		fail "the schema check took a string containerPort: $out"
	grep -q 'containerPort must be integer' <<< "$out" ||
		fail "the schema check refused the bad copy for another reason: $out"
	say "a copy with containerPort \"9464x\": refused"
}

lab_run_tests test_manifests "${*:-$ALL_TESTS}"
