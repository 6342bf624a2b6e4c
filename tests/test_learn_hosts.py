"""cordonc learn --hosts (issue 26, item 5): the samples run with the
egress proxy as their network (cordon --observe --observe-hosts), which
lets every host through and records each one it connected to; the
learned policy names them (network connect "NAME":PORT, each with what
used it), compiles, and lets the same sample run through the proxy.  A
stand-in HTTPS service on loopback (tests/test_egress.py's), reached by
name through --resolve NAME:127.0.0.1.  Runs as root and as uid 65534
(tests/run-pytest.sh)."""
import os
import shutil
import subprocess
import tempfile

import pytest

from test_egress import Service, cert  # noqa: F401 (a fixture)
from test_learn import CORDON, CORDONC, SRC, compiled, ns_or_skip

NAME = "api.imaging.datacommons.cancer.gov"   # in cert's names


@pytest.fixture
def ca(cert):  # noqa: F811
    d = tempfile.mkdtemp(prefix="cordon-learn-ca-", dir="/var/tmp")
    os.chmod(d, 0o755)
    shutil.copy(str(cert / "ca.pem"), os.path.join(d, "ca.pem"))
    os.chmod(os.path.join(d, "ca.pem"), 0o644)
    yield os.path.join(d, "ca.pem")
    shutil.rmtree(d, ignore_errors=True)


def learn_hosts(tmp_path, code, extra):
    base = tmp_path / "base.policy"
    base.write_text('include "base/python.policy";\npolicy "base";\n')
    sample = tmp_path / "fetch.py"
    sample.write_text(code)
    out = tmp_path / "learned.policy"
    r = subprocess.run([CORDONC, "learn", "-I", str(SRC / "policies"),
                        "--cordon", CORDON, "-o", str(out), *extra,
                        str(base), str(sample)], capture_output=True,
                       text=True, timeout=300)
    return r, out


def test_learn_names_the_host_reached(tmp_path, cert, ca):  # noqa: F811
    ns_or_skip()
    with Service(cert) as svc:
        code = ("import ssl, urllib.request\n"
                "ctx = ssl.create_default_context(cafile=%r)\n"
                "with urllib.request.urlopen('https://%s:%d/x', "
                "context=ctx, timeout=10) as r:\n"
                "    print(r.read().decode())\n" % (ca, NAME, svc.port))
        r, out = learn_hosts(tmp_path, code, [
            "--hosts", "--resolve", "%s:127.0.0.1" % NAME])
        hits = svc.hits
    text = out.read_text() if out.exists() else None
    assert r.returncode == 0, (r.stderr, text)
    assert "passes (exit 0)" in r.stderr, r.stderr
    # Observed, then passed under the learned policy: both through the
    # proxy to the stand-in.
    assert hits == 2, (hits, r.stderr)
    lines = text.splitlines()
    at = lines.index("network connect")
    assert lines[at + 1].startswith('    "%s":%d;  # 1 connection, first '
                                    'in fetch.py' % (NAME, svc.port)), text
    # No port rule: the proxy's own port and the stand-in's are not
    # learned as `network connect PORT` (any host).
    assert not [x for x in lines if x.startswith("network connect ")
                and x[16:17].isdigit()], text
    pol = compiled(tmp_path, out)
    assert pol["layers"]["network"] != "off", pol["layers"]
    assert NAME in str(pol), pol


def test_observe_hosts_only_in_learn_mode(tmp_path, launcher_blobs):
    """--observe-hosts lets every host through the proxy: learn mode
    only, refused before anything runs without --observe."""
    snip = tmp_path / "s.py"
    snip.write_text("print('ran')\n")
    r = subprocess.run([CORDON, "--observe-hosts",
                        str(launcher_blobs("launcher-denials")), str(snip)],
                       capture_output=True, text=True)
    assert r.returncode == 125 and "ran" not in r.stdout, r
    assert "only with --observe" in r.stderr, r.stderr


def test_learn_csv_plot_host_reads_short(tmp_path, cert, ca):  # noqa: F811
    """The issue's samples (read a CSV, plot with matplotlib) and a fetch
    from a named host, learned together with --hosts: under 20 path
    rules, the host named, every sample passing under the result."""
    ns_or_skip()
    r = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                       capture_output=True)
    if r.returncode:
        pytest.skip("no matplotlib for /usr/bin/python3 here")
    data = os.path.join(os.path.dirname(ca), "t.csv")
    with open(data, "w") as f:
        f.write("a,b\n1,2\n")
    os.chmod(data, 0o644)
    base = tmp_path / "base.policy"
    base.write_text('include "base/python.policy";\npolicy "base";\n')
    with Service(cert) as svc:
        codes = {
            "csv.py": "import csv\nprint(list(csv.reader(open(%r))))\n"
                      % data,
            "plot.py": "import matplotlib\nmatplotlib.use('Agg')\n"
                       "import matplotlib.pyplot as plt\n"
                       "plt.plot([1, 2], [3, 4])\nplt.savefig('p.png')\n",
            "fetch.py": "import ssl, urllib.request\n"
                        "ctx = ssl.create_default_context(cafile=%r)\n"
                        "urllib.request.urlopen('https://%s:%d/x', "
                        "context=ctx, timeout=10).read()\n"
                        % (ca, NAME, svc.port)}
        paths = []
        for n, c in codes.items():
            (tmp_path / n).write_text(c)
            paths.append(str(tmp_path / n))
        out = tmp_path / "learned.policy"
        r = subprocess.run([CORDONC, "learn", "-I", str(SRC / "policies"),
                            "--cordon", CORDON, "-o", str(out), "--hosts",
                            "--resolve", "%s:127.0.0.1" % NAME, str(base),
                            *paths], capture_output=True, text=True,
                           timeout=300)
    text = out.read_text() if out.exists() else None
    assert r.returncode == 0, (r.stderr, text)
    assert r.stderr.count("passes (exit 0)") == 3, r.stderr
    npath = len([x for x in text.splitlines() if x.startswith("path ")])
    assert npath < 20, (npath, text)
    assert '    "%s":%d;' % (NAME, svc.port) in text, text


def test_observe_named_host_base_keeps_its_namespace(tmp_path, cordonc_bin,
                                                     src_dir):
    """A base that names hosts, observed: its network stays the proxy in
    the run's own namespace.  On 8fa1b0f learn mode dropped the network
    namespace here too, and the run failed before the snippet (exit 125:
    the proxy's listener could not be made in the host's namespace)."""
    ns_or_skip()
    blob = tmp_path / "idc.cpol"
    c = subprocess.run([str(cordonc_bin), "compile", "-I",
                        str(src_dir / "policies"), "-o", str(blob),
                        str(src_dir / "policies" / "idc_query.policy")],
                       capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    snip = tmp_path / "s.py"
    snip.write_text("import os\nprint(os.readlink('/proc/self/ns/net'))\n"
                    "print(os.environ.get('HTTPS_PROXY'))\n")
    trace = tmp_path / "t.trace"
    r = subprocess.run([CORDON, "--observe", str(trace), str(blob),
                        str(snip)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    ns, proxy = r.stdout.split()
    assert ns != os.readlink("/proc/self/ns/net"), r.stdout
    assert proxy == "http://127.0.0.1:3128", r.stdout
    assert "egress proxy letting every host through" in r.stderr, r.stderr
