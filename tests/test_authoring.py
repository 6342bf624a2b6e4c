"""A new author's policies (issue 16): what the network statement alone
allows, run for real.  Run as root and as uid 65534 by
tests/run-pytest.sh."""
import json
import socket
import subprocess
import threading

import pytest

from conftest import BUILD, SRC

CORDONC = str(BUILD / "cordonc")
CORDON = str(BUILD / "cordon")


@pytest.fixture
def server():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)

    def serve():
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            c.sendall(b"hello\n")
            c.close()
    threading.Thread(target=serve, daemon=True).start()
    yield s.getsockname()[1]
    s.close()


def compile_policy(tmp_path, text):
    src = tmp_path / "tool.policy"
    src.write_text(text)
    blob = tmp_path / "tool.cpol"
    r = subprocess.run([CORDONC, "compile", "-I", str(SRC / "policies"),
                        "-o", str(blob), str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return blob


def run(blob, code, tmp_path):
    p = tmp_path / "snippet.py"
    p.write_text(code)
    return subprocess.run([CORDON, "--quiet", str(blob), str(p)],
                          capture_output=True, text=True, timeout=120)


def test_network_connect_alone_connects(tmp_path, server):
    """`network connect PORT;` and nothing else: connect() is the network
    statement's, not the base's ENOSYS."""
    blob = compile_policy(tmp_path, 'include "base/python.policy";\n'
                          'policy "client";\nnetwork connect %d;\n' % server)
    r = run(blob, "import socket\n"
            "s = socket.create_connection(('127.0.0.1', %d))\n"
            "print(s.recv(10))\n" % server, tmp_path)
    assert r.returncode == 0 and "hello" in r.stdout, r
    # Another port: Landlock refuses it (EACCES), not seccomp (ENOSYS).
    r = run(blob, "import socket\n"
            "try:\n"
            "    socket.create_connection(('127.0.0.1', %d))\n"
            "except OSError as e:\n"
            "    print('refused', e.errno)\n" % (server ^ 1), tmp_path)
    assert "refused 13" in r.stdout, r


def test_network_bind_alone_listens(tmp_path):
    """`network bind PORT;` gives bind, listen and accept."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    blob = compile_policy(tmp_path, 'include "base/python.policy";\n'
                          'policy "server";\nnetwork bind %d;\n' % port)
    r = run(blob, "import socket\n"
            "s = socket.socket()\n"
            "s.bind(('127.0.0.1', %d))\n"
            "s.listen(1)\n"
            "s.settimeout(0.1)\n"
            "try:\n"
            "    s.accept()\n"
            "except TimeoutError:\n"
            "    print('listening')\n" % port, tmp_path)
    assert r.returncode == 0 and "listening" in r.stdout, r


def compile_only(tmp_path, text):
    src = tmp_path / "tool.policy"
    src.write_text(text)
    return subprocess.run([CORDONC, "compile", "-o", str(tmp_path / "t.cpol"),
                           str(src)], capture_output=True, text=True)


EXEC_POLICY = ('policy "exec";\ndefault allow;\n%s\npath "$WORKDIR" rw;\n'
               'command "/usr/bin/python3" "-I" "$SNIPPET";\n')


def test_command_must_be_executable_under_its_own_rules(tmp_path):
    """The command, and the ELF interpreter named in its PT_INTERP, need
    execute and read-file under the policy's own Landlock rules: without
    them the run fails with EACCES and no word of Landlock, so it is a
    compile error that says which rule to add."""
    r = compile_only(tmp_path, EXEC_POLICY % "path /usr/lib rx;")
    assert r.returncode == 1, r
    assert ("the command /usr/bin/python3" in r.stderr and
            "`path /usr/bin/python3 rx;`" in r.stderr), r.stderr
    assert "interpreter" not in r.stderr, r.stderr   # ld.so is in /usr/lib
    with open("/usr/bin/python3", "rb") as f:
        elf = f.read(4) == b"\x7fELF"
    r = compile_only(tmp_path, EXEC_POLICY % "path /usr/bin rx;")
    if elf:
        assert r.returncode == 1, r
        assert "the command's interpreter /" in r.stderr, r.stderr
    r = compile_only(tmp_path, EXEC_POLICY % "path /usr rx;")
    assert r.returncode == 0, r.stderr
    run_ = subprocess.run([CORDON, "--quiet", str(tmp_path / "t.cpol"), "-"],
                          input="print('ran')\n", capture_output=True,
                          text=True, timeout=120)
    assert run_.returncode == 0 and "ran" in run_.stdout, run_


def test_a_path_in_the_private_tmp_is_said_at_compile_and_test(tmp_path):
    """A rule for a folder under /tmp compiles, but the run's own private
    /tmp hides that folder (issue 26): compile warns and names the cause,
    `cordonc test` answers the expectation as the run does, and the run
    indeed does not see the file (so the warning is the truth)."""
    data = tmp_path / "in"          # pytest's tmp_path is below /tmp
    data.mkdir()
    (data / "data.csv").write_text("a,b\n")
    data.chmod(0o755)
    src = tmp_path / "tool.policy"
    src.write_text('include "base/python.policy";\npolicy "t";\n'
                   'path "$WORKDIR" rw;\npath "%s" ro;\n'
                   'expect read %s/data.csv;\n'
                   'command "/usr/bin/python3" "-I" "$SNIPPET";\n'
                   % (data, data))
    blob = tmp_path / "tool.cpol"
    c = subprocess.run([CORDONC, "compile", "-I", str(SRC / "policies"),
                        "-o", str(blob), str(src)],
                       capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    assert "warning: %s is in the run's private /tmp" % data in c.stderr
    t = subprocess.run([CORDONC, "test", "-I", str(SRC / "policies"),
                        str(src)], capture_output=True, text=True)
    assert t.returncode == 1, t.stdout + t.stderr
    assert "FAIL expect read %s/data.csv" % data in t.stdout + t.stderr
    assert "private /tmp" in t.stdout + t.stderr
    snip = tmp_path / "s.py"
    snip.write_text("import os\nprint(os.path.exists(%r))\n"
                    % str(data / "data.csv"))
    st = tmp_path / "status.json"
    r = subprocess.run([CORDON, "--status-file", str(st), str(blob),
                        str(snip)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    if not json.loads(st.read_text())["layers"].get("private_tmp"):
        pytest.skip("no private /tmp here (no mount namespace): the "
                    "host's folder is not hidden")
    assert r.stdout == "False\n"


def test_a_python_policy_without_the_base_says_so(tmp_path):
    """Following the compiler's `path ... rx;` advice without the base
    compiles; the run then dies of SIGSYS with nothing said (issue 26).
    The compile says what is missing."""
    src = tmp_path / "tool.policy"
    src.write_text('policy "t";\npath "$WORKDIR" rw;\n'
                   'path "/usr/bin/python3" rx;\npath "/usr/bin" rx;\n'
                   'path "/lib64" rx;\npath "/usr/lib" rx;\n'
                   'command "/usr/bin/python3" "$SNIPPET";\n')
    c = subprocess.run([CORDONC, "compile", "-o", str(tmp_path / "t.cpol"),
                        str(src)], capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    assert "warning: no include of base/python.policy" in c.stderr
    src.write_text('include "base/python.policy";\n' + src.read_text())
    c = subprocess.run([CORDONC, "compile", "-I", str(SRC / "policies"),
                        "-o", str(tmp_path / "t.cpol"), str(src)],
                       capture_output=True, text=True)
    assert c.returncode == 0 and "base/python.policy" not in c.stderr, \
        c.stderr


def test_argument_named_like_a_keyword(tmp_path):
    """set (rt_sigprocmask) and timeout (futex) are arguments' names and
    keywords: a condition may name them (cordonc import writes them)."""
    src = tmp_path / "kw.policy"
    src.write_text('policy "kw";\ndefault errno(EPERM);\n'
                   "allow rt_sigprocmask(set == 0);\n"
                   "allow futex(timeout & 0xff == 0);\n"
                   "path /usr rx;\npath /lib64 rx;\n"
                   'command "/bin/true";\n')
    r = subprocess.run([CORDONC, "compile", "-o", str(tmp_path / "kw.cpol"),
                        str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([CORDONC, "explain", str(src)], capture_output=True,
                       text=True)
    assert r.returncode == 0 and "set" in r.stdout, r
