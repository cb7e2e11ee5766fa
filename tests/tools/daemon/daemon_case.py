#!/usr/bin/env python3
"""One case of the device daemon (`ferry serve`, issue 28) against a real offload program.

Starts a daemon on a Unix socket in a fresh directory with a fresh token, runs the launcher
command after `--` with FERRY_REMOTE pointing at it, checks what the case expects of the
program's exit, its output and the daemon's log, then stops the daemon with SIGTERM and
checks that it ends, removes its socket and leaves no worker behind.

  daemon_case.py --ferry BIN --case CASE [--serve 'CMD...' --serve-env K=V ...] -- CMD...

CASE: runs, wrong_token, open_token, no_daemon, killed, too_big, background; concurrent (two
programs at once, each in a worker of its own); restart (the daemon is killed with SIGKILL
after a first run and started again on the same socket; a second run works); no_image (a
program without an image for the daemon's machine is refused, saying how to build one); usm (a
program that requires unified shared memory is refused a daemon's device, saying why); hostile
(garbage, a huge frame and a replayed handshake opening on three connections are refused and
logged, and a program is then served); tls (a daemon on TCP loopback with a certificate a test
CA signed, a client that checks it), tls_untrusted (the client trusts another CA: refused,
naming the certificate check), tls_plain_client (a client without TLS: refused); memory_cap (a
map larger than FERRY_SERVE_MAX_MEMORY fails, naming the daemon's setting).
--serve replaces `BIN serve` (the emulated aarch64 daemon: 'qemu-aarch64 .../ferry-serve'),
--serve-env adds to its environment (LD_LIBRARY_PATH of its arm64 libomp).
"""
import argparse
import os
import re
import secrets
import shlex
import signal
import subprocess
import sys
import tempfile
import time


def fail(msg, *logs):
    print(f"FAIL daemon_case: {msg}")
    for name, text in logs:
        print(f"---- {name} ----\n{text}")
    sys.exit(1)


class Detached:
    """A daemon started with --daemon: known by its pid file, not as our child."""

    def __init__(self, pid):
        self.pid = pid

    def send_signal(self, sig):
        os.kill(self.pid, sig)

    def wait(self, timeout):
        for _ in range(int(timeout * 20)):
            if not os.path.exists(f"/proc/{self.pid}"):
                return 0
            time.sleep(0.05)
        raise subprocess.TimeoutExpired("ferry serve --daemon", timeout)

    def kill(self):
        os.kill(self.pid, signal.SIGKILL)


def make_certificates(tmp):
    """A test CA, a daemon certificate it signs for IP 127.0.0.1, and a second CA that signs
    nothing (openssl's CLI)."""
    def ossl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=tmp)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ossl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=ferry test CA")
    ossl("req", "-x509", *ec, "-keyout", "other.key", "-out", "other.pem", "-days", "2", "-subj", "/CN=another CA")
    ossl("req", *ec, "-keyout", "daemon.key", "-out", "daemon.csr", "-subj", "/CN=ferry daemon")
    with open(os.path.join(tmp, "ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    ossl("x509", "-req", "-in", "daemon.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
         "-out", "daemon.pem", "-days", "2", "-extfile", "ext")
    os.chmod(os.path.join(tmp, "daemon.key"), 0o600)


def free_tcp_address():
    import socket as so
    with so.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def start_daemon(serve, tmp, token, extra_env, background, address=None, extra_args=()):
    sock = os.path.join(tmp, "sock")
    logname = os.path.join(tmp, "daemon.log")
    log = open(logname, "a+")
    cmd = serve + ["--listen", address or "unix:" + sock, "--token-file", token, *extra_args]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    if background:
        cmd += ["--daemon", "--log-file", logname, "--pid-file", os.path.join(tmp, "pid")]
    env = dict(os.environ, FERRY_LOG="info,service")
    env.update(extra_env)
    daemon = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    if background:
        if daemon.wait(timeout=30) != 0:
            log.seek(0)
            fail("ferry serve --daemon did not start", ("daemon log", log.read()))
        for _ in range(200):
            if os.path.exists(os.path.join(tmp, "pid")) and os.path.getsize(os.path.join(tmp, "pid")) > 0:
                break
            time.sleep(0.05)
        daemon = Detached(int(open(os.path.join(tmp, "pid")).read()))
    for _ in range(200):
        if os.path.exists(sock) or (address and "listening on" in open(logname).read()):
            return daemon, sock, log
        if not background and daemon.poll() is not None:
            break
        time.sleep(0.05)
    log.seek(0)
    fail("the daemon did not start", ("daemon log", log.read()))


def write_token(path, mode=0o600):
    with open(path, "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    os.chmod(path, mode)


def workers_of(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def kill_workers(pid):
    """SIGKILLs the daemon's workers; one that ended between `ps` and the kill (its client had
    finished) is not an error: the stress campaign once failed on exactly that."""
    for w in workers_of(pid):
        try:
            os.kill(w, signal.SIGKILL)
        except ProcessLookupError:
            pass


def hostile_connections(sock):
    """Garbage, a frame header announcing 2^40 bytes, and a replayed handshake opening, each on
    a connection of its own; the daemon must refuse each and go on serving."""
    import socket as so
    import struct
    frames = [secrets.token_bytes(4096),
              b"FRCH" + struct.pack("<IQ", 8, 1 << 40),
              b"FRCH" + struct.pack("<IQ", 8, 16) + secrets.token_bytes(16)]
    for data in frames:
        c = so.socket(so.AF_UNIX, so.SOCK_STREAM)
        c.connect(sock)
        try:
            c.sendall(data)
            c.settimeout(20)
            while c.recv(4096):  # the daemon's challenge, then its close
                pass
        except OSError:
            pass
        c.close()


def run_program(cmd, env, timeout):
    start = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        fail(f"the program did not end within {timeout} s (a hang)", ("output", (e.stdout or b"").decode(errors="replace")))
    return p.returncode, p.stdout + p.stderr, time.time() - start


def expect(case, code, out, seconds, daemon_log):
    logs = (("program output", out), ("daemon log", daemon_log))
    if case == "hostile":
        refused = re.findall(r"refused client unix socket: (.*)", daemon_log)
        if len(refused) < 3:
            fail(f"the daemon logged {len(refused)} refusal(s) for 3 hostile connections", *logs)
        print("daemon_case hostile: the daemon's reasons:\n  " + "\n  ".join(refused))
        case = "runs"
    if case == "tls":
        if "with TLS" not in daemon_log:
            fail("the daemon does not say it listens with TLS", *logs)
        case = "runs"
    if case in ("runs", "background", "concurrent", "restart"):
        if code != 0 or out.count("all checks passed") != (2 if case in ("concurrent", "restart") else 1):
            fail(f"exit {code}, expected 0 and 'all checks passed' from each run", *logs)
        workers = set(re.findall(r"connected \(worker (\d+)\)", daemon_log))
        if case == "concurrent" and len(workers) != 2:
            fail(f"{len(workers)} worker(s) served the two clients, expected one each", *logs)
        for want in ("authenticated", "is done"):
            if want not in daemon_log:
                fail(f"the daemon's log lacks '{want}'", *logs)
        return
    patterns = {
        "wrong_token": [r"is the token the daemon's\?", r"daemon unix:\S+ closed the connection"],
        "open_token": [r"FERRY_REMOTE_TOKEN_FILE: token file \S+ may be read by others \(mode 644\)", r"chmod 600"],
        "no_daemon": [r"cannot connect to the daemon at unix:\S+nobody"],
        "too_big": [r"is more than this server takes at once \(FERRY_SERVE_MAX_IMAGE=64 KiB\)", r"daemon unix:"],
        "no_image": [r"device 0 \(daemon unix:\S+\) failed: this device runs aarch64 code but the program has no "
                     r"aarch64 image; build with -fopenmp-targets=x86_64-pc-linux-gnu,aarch64-unknown-linux-gnu",
                     r"served by 1 daemon\(s\)"],
        "tls_untrusted": [r"FERRY_REMOTE_TLS: TLS handshake with daemon 127\.0\.0\.1:\d+ failed: the certificate "
                          r"check failed: (self-signed certificate in certificate chain|unable to get local issuer "
                          r"certificate)"],
        "tls_plain_client": [r"daemon 127\.0\.0\.1:\d+: authenticating the daemon: no challenge within the "
                             r"handshake's time \(FERRY_TIMEOUT\): is the daemon started with --tls-cert\? Then set "
                             r"FERRY_REMOTE_TLS=1"],
        "memory_cap": [r"on device 0 \(daemon unix:\S+\) does not fit: the device has 16 MiB of memory",
                       r"the daemon's FERRY_SERVE_MAX_MEMORY sets what one client may use"],
        "usm": [r"device 0 \(daemon unix:\S+\) failed: .*'#pragma omp requires unified_shared_memory': .*cannot "
                r"reach its client's memory \(a daemon's clients are on another machine\); map the data"],
        "killed": [r"device \d+ \(daemon unix:\S+\): daemon unix:\S+ closed the connection( \([^)]*\))? while rank 0 "
                   r"on host \S+ waited for"],
    }[case]
    if code == 0:
        fail("the program succeeded; the case expects a failure", *logs)
    for p in patterns:
        if not re.search(p, out):
            fail(f"the output does not match {p!r}", *logs)
    if case == "wrong_token" and "refused client unix socket: the client does not hold this daemon's token" not in daemon_log:
        fail("the daemon's log does not say why it refused the client", *logs)
    if seconds > 60:
        fail(f"the failure took {seconds:.0f} s", *logs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ferry", required=True)
    ap.add_argument("--case", required=True,
                    choices=["runs", "wrong_token", "open_token", "no_daemon", "killed", "too_big", "background",
                             "concurrent", "restart", "no_image", "usm", "hostile", "tls", "tls_untrusted",
                             "tls_plain_client", "memory_cap"])
    ap.add_argument("--serve", help="the daemon's command instead of `FERRY serve`")
    ap.add_argument("--serve-env", action="append", default=[], help="KEY=VALUE for the daemon's environment")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    with tempfile.TemporaryDirectory(prefix="ferry-daemon-") as tmp:
        token = os.path.join(tmp, "token")
        write_token(token)
        daemon_env = {"FERRY_SERVE_MAX_IMAGE": "64K"} if a.case == "too_big" else {}
        if a.case == "killed":
            daemon_env["FERRY_LOG"] = "trace,service"
        if a.case == "memory_cap":
            daemon_env["FERRY_SERVE_MAX_MEMORY"] = "16M"
        daemon_env.update(kv.split("=", 1) for kv in a.serve_env)
        serve = shlex.split(a.serve) if a.serve else [a.ferry, "serve"]
        address, tls_args, tls_env = None, (), {}
        if a.case.startswith("tls"):
            make_certificates(tmp)
            address = free_tcp_address()
            tls_args = ("--tls-cert", os.path.join(tmp, "daemon.pem"), "--tls-key", os.path.join(tmp, "daemon.key"))
            ca = "other.pem" if a.case == "tls_untrusted" else "ca.pem"
            tls_env = {} if a.case == "tls_plain_client" else {"FERRY_REMOTE_TLS": "1",
                                                               "FERRY_REMOTE_TLS_CA": os.path.join(tmp, ca)}
        daemon, sock, log = start_daemon(serve, tmp, token, daemon_env, a.case == "background", address, tls_args)
        env = dict(os.environ, FERRY_REMOTE=address or "unix:" + sock, FERRY_REMOTE_TOKEN_FILE=token,
                   OFFLOAD_TEST_DAEMONS="1", **tls_env)
        if a.case == "wrong_token":
            env["FERRY_REMOTE_TOKEN_FILE"] = os.path.join(tmp, "other")
            write_token(env["FERRY_REMOTE_TOKEN_FILE"])
        elif a.case == "open_token":
            env["FERRY_REMOTE_TOKEN_FILE"] = os.path.join(tmp, "open")
            write_token(env["FERRY_REMOTE_TOKEN_FILE"], 0o644)
        elif a.case == "no_daemon":
            env["FERRY_REMOTE"] = "unix:" + os.path.join(tmp, "nobody")
        if a.case == "killed":
            prog = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            # The kill must come while rank 0 waits for the kernel: a fixed second after the
            # worker appeared once came during the handshake of an emulated (qemu) worker on a
            # busy machine, which fails with another message. The worker's trace says when the
            # kernel starts.
            for _ in range(1200):
                time.sleep(0.05)
                with open(os.path.join(tmp, "daemon.log")) as f:
                    if "start   launch" in f.read():
                        break
            time.sleep(0.2)
            kill_workers(daemon.pid)
            start = time.time()
            try:
                out, _ = prog.communicate(timeout=90)
            except subprocess.TimeoutExpired:
                prog.kill()
                fail("the program hung after its daemon's worker died")
            code, seconds = prog.returncode, time.time() - start
        elif a.case == "concurrent":
            progs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                     for _ in range(2)]
            outs, code, start = [], 0, time.time()
            for p in progs:
                try:
                    outs.append(p.communicate(timeout=180)[0])
                except subprocess.TimeoutExpired:
                    for q in progs:
                        q.kill()
                    fail("two programs at once on one daemon did not end within 180 s (a hang)")
                code = code or p.returncode
            out, seconds = "\n".join(outs), time.time() - start
        elif a.case == "restart":
            code, out, seconds = run_program(cmd, env, 120)
            kill_workers(daemon.pid)
            daemon.kill()
            daemon.wait(timeout=15)
            daemon, sock, log = start_daemon(serve, tmp, token, daemon_env, False)  # the stale socket is replaced
            code2, out2, seconds = run_program(cmd, env, 120)
            code, out = code or code2, out + "\n" + out2
        else:
            if a.case == "hostile":
                hostile_connections(sock)
            code, out, seconds = run_program(cmd, env, 120)
        if code == 0:  # the client does not wait for its worker's end: give the worker time to log it
            for _ in range(200):
                log.seek(0)
                if "is done" in log.read():
                    break
                time.sleep(0.05)
        daemon.send_signal(signal.SIGTERM)
        try:
            rc = daemon.wait(timeout=15)
        except subprocess.TimeoutExpired:
            daemon.kill()
            fail("the daemon did not stop on SIGTERM")
        log.seek(0)
        daemon_log = log.read()
        expect(a.case, code, out, seconds, daemon_log)
        if rc != 0:
            fail(f"the daemon exited {rc} on SIGTERM", ("daemon log", daemon_log))
        if not address and os.path.exists(sock):
            fail("the daemon left its socket behind", ("daemon log", daemon_log))
    print(f"daemon_case {a.case}: ok")


if __name__ == "__main__":
    main()
