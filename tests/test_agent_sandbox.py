"""deploy/agent-sandbox/: the SandboxTemplates (cordon-runtime, the same
with a credential, cordon-mcp over HTTP) and the SandboxWarmPool,
checked against kubernetes-sigs/agent-sandbox's CRD schemas (every field
used exists in the CRD's openAPIV3Schema, with its type and enum; the
required ones given) read from a checkout of that project, and against
what cordon needs: a restricted pod, the runtime's own options (parsed
by its parser), its port, probes and files on mounted volumes.

The CRDs: $CORDON_AGENT_SANDBOX (a checkout or a git directory of
kubernetes-sigs/agent-sandbox), else the fetched mirror; without either
the schema check is skipped, saying so."""
import os
import pathlib
import subprocess
import sys

import pytest

yaml = pytest.importorskip("yaml", reason="python3-yaml is not installed")

MIRROR = "/work/.mirror/kubernetes-sigs+agent-sandbox/repo"
CRDS = {"SandboxTemplate":
        "k8s/crds/extensions.agents.x-k8s.io_sandboxtemplates.yaml",
        "SandboxWarmPool":
        "k8s/crds/extensions.agents.x-k8s.io_sandboxwarmpools.yaml"}


def manifests(src_dir):
    out = []
    for p in sorted((src_dir / "deploy" / "agent-sandbox").glob("*.yaml")):
        for doc in yaml.safe_load_all(p.read_text()):
            if doc:
                out.append((p.name, doc))
    return out


def crd_text(rel):
    where = os.environ.get("CORDON_AGENT_SANDBOX", MIRROR)
    if os.path.isfile(os.path.join(where, rel)):
        return pathlib.Path(where, rel).read_text()
    if os.path.isdir(where):
        p = subprocess.run(["git", "-c", "safe.directory=*", "--git-dir",
                            os.path.join(where, ".git")
                            if os.path.isdir(os.path.join(where, ".git"))
                            else where, "show", "HEAD:" + rel],
                           capture_output=True, text=True)
        if p.returncode == 0:
            return p.stdout
    pytest.skip("no kubernetes-sigs/agent-sandbox checkout at %s "
                "($CORDON_AGENT_SANDBOX): the CRD schemas cannot be read"
                % where)


TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "integer": int, "number": (int, float)}


def check(value, schema, where, errors):
    """value against an openAPIV3Schema node: properties, types, enums,
    required, items; additionalProperties and preserve-unknown-fields
    let unnamed keys through."""
    if schema.get("x-kubernetes-int-or-string"):
        if not isinstance(value, (int, str)) or isinstance(value, bool):
            errors.append("%s: int or string expected" % where)
        return
    t = schema.get("type")
    if t and not (isinstance(value, TYPES[t]) and
                  not (t in ("integer", "number") and
                       isinstance(value, bool))):
        errors.append("%s: %s expected, got %r" % (where, t, value))
        return
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r not in %s" % (where, value, schema["enum"]))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in value:
                errors.append("%s: required %s missing" % (where, k))
        for k, v in value.items():
            if k in props:
                check(v, props[k], "%s.%s" % (where, k), errors)
            elif isinstance(schema.get("additionalProperties"), dict):
                check(v, schema["additionalProperties"],
                      "%s.%s" % (where, k), errors)
            elif not (schema.get("additionalProperties") is True or
                      schema.get("x-kubernetes-preserve-unknown-fields")):
                errors.append("%s.%s: no such field in the CRD" % (where, k))
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            check(v, schema["items"], "%s[%d]" % (where, i), errors)


def test_manifests_match_the_crds(src_dir):
    docs = manifests(src_dir)
    kinds = {d["kind"] for _, d in docs}
    assert kinds == {"SandboxTemplate", "SandboxWarmPool"}, kinds
    crds = {k: yaml.safe_load(crd_text(rel)) for k, rel in CRDS.items()}
    for name, doc in docs:
        crd = crds[doc["kind"]]
        group, _, version = doc["apiVersion"].partition("/")
        assert group == crd["spec"]["group"], name
        assert crd["spec"]["names"]["kind"] == doc["kind"]
        (ver,) = [v for v in crd["spec"]["versions"]
                  if v["name"] == version]
        assert ver["served"], (name, version)
        errors = []
        # The root's metadata is ObjectMeta, the API server's own.
        meta = doc["metadata"]
        assert isinstance(meta["name"], str) and meta["namespace"]
        check(dict(doc, metadata={}), ver["schema"]["openAPIV3Schema"],
              doc["kind"], errors)
        assert not errors, (name, errors)
    # The schema check can fail: a field the CRD does not have.
    bad = dict(docs[0][1], spec=dict(docs[0][1]["spec"], podTemplat={}))
    errors = []
    check(bad, [v for v in crds[bad["kind"]]["spec"]["versions"]
                if v["served"]][0]["schema"]["openAPIV3Schema"], "x",
          errors)
    assert errors


def _runtime_options(src_dir):
    sys.path.insert(0, str(src_dir / "clients" / "python"))
    try:
        from cordon import runtime, _mcpconfig
    finally:
        sys.path.pop(0)
    return runtime, _mcpconfig


def test_pods_restricted_and_options_real(src_dir):
    runtime, mcpconfig = _runtime_options(src_dir)
    docs = manifests(src_dir)
    templates = {d["metadata"]["name"]: d for _, d in docs
                 if d["kind"] == "SandboxTemplate"}
    assert {"cordon-python", "cordon-python-api", "cordon-mcp"} <= \
        set(templates)
    for _, d in docs:
        if d["kind"] == "SandboxWarmPool":
            assert d["spec"]["sandboxTemplateRef"]["name"] in templates
    for name, t in templates.items():
        pod = t["spec"]["podTemplate"]["spec"]
        sc = pod["securityContext"]
        assert sc["runAsNonRoot"] is True and sc["runAsUser"] != 0
        assert sc["seccompProfile"]["type"] in ("Localhost",
                                                "RuntimeDefault")
        assert pod["automountServiceAccountToken"] is False
        mounts_ok = {v["name"] for v in pod["volumes"]}
        for c in pod["containers"]:
            csc = c["securityContext"]
            assert csc["readOnlyRootFilesystem"] is True
            assert csc["allowPrivilegeEscalation"] is False
            assert csc["capabilities"]["drop"] == ["ALL"]
            assert "limits" in c["resources"]
            mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
            assert set(mounts.values()) <= mounts_ok

            def mounted(path):
                return any(path.startswith(m.rstrip("/") + "/")
                           for m in mounts)
            port = c["ports"][0]["containerPort"]
            for probe in ("readinessProbe", "livenessProbe"):
                p = c[probe]
                got = (p.get("httpGet") or p.get("tcpSocket"))["port"]
                assert got == port, (name, probe)
            env = {e["name"]: e["value"] for e in c.get("env", ())}
            assert mounted(env["TMPDIR"])
            args = list(c["args"])
            if c["command"][-1] == "cordon.runtime":
                ns = runtime.options().parse_args(args)
                assert ns.listen == "0.0.0.0:%d" % port
                assert ns.token_file and mounted(ns.token_file)
                assert ns.root in mounts
                assert ns.policy
                for cred in ns.credential:
                    pol, _, rest = cred.partition(":")
                    assert pol in ns.policy, cred
                    assert mounted(rest.split("=@", 1)[1]), cred
                for a in c["readinessProbe"], c["livenessProbe"]:
                    assert a["httpGet"]["path"] in ("/", "/v1/health")
            else:
                assert c["command"][-1] == "cordon.mcp"
                cfg = mcpconfig._parser().parse_args(args)
                assert cfg.http == "0.0.0.0:%d" % port
                assert mounted(cfg.http_token_file)
    assert any(a.startswith("--credential=") for a in
               templates["cordon-python-api"]["spec"]["podTemplate"]
               ["spec"]["containers"][0]["args"])
