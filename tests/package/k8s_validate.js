// SPDX-License-Identifier: GPL-2.0
// Each object of the YAML files named against the schema of its kind in
// the npm package kubernetes-models (tests/package/test_manifests.sh).
// Prints "ok FILE KIND NAME" or "FAIL FILE KIND NAME: why" per object;
// exits 1 if any failed or has no schema.
'use strict';
const fs = require('fs');
const yaml = require('js-yaml');

let bad = 0;
for (const file of process.argv.slice(2)) {
	for (const obj of yaml.loadAll(fs.readFileSync(file, 'utf8'))) {
		if (!obj || obj.kind === 'Kustomization')
			continue;
		const name = `${file} ${obj.kind} ${obj.metadata && obj.metadata.name}`;
		const [group, version] = obj.apiVersion.includes('/') ?
			obj.apiVersion.split('/') : ['', obj.apiVersion];
		let Model;
		try {
			const mod = require(`kubernetes-models/${group ? group + '/' : ''}${version}/${obj.kind}`);
			Model = mod[obj.kind] || mod.default;
		} catch (e) {
			console.log(`FAIL ${name}: no schema for ${obj.apiVersion} ${obj.kind}`);
			bad++;
			continue;
		}
		try {
			new Model(obj).validate();
			console.log(`ok ${name}`);
		} catch (e) {
			console.log(`FAIL ${name}: ${e.message}`);
			bad++;
		}
	}
}
process.exit(bad ? 1 : 0);
