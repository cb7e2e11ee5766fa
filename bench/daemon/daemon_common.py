"""What the device daemon's benchmark scripts share: the shell settings of `ferry env`, a fresh
token, and a native daemon started and stopped around a measurement."""
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import time


def ferry_env(ferry):
    """os.environ with the settings `ferry env` prints (the plugin first on LD_LIBRARY_PATH)."""
    env = dict(os.environ)
    for line in subprocess.run([ferry, "env"], capture_output=True, text=True, check=True).stdout.splitlines():
        if line.startswith("export ") and "=" in line:
            k, v = line[len("export "):].split("=", 1)
            env[k] = v.rstrip(";").strip("'\"")
    return env


def write_token(path):
    with open(path, "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    os.chmod(path, 0o600)


def listening(address):
    if address.startswith("unix:"):
        return os.path.exists(address[len("unix:"):])
    host, port = address.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=1).close()  # the daemon logs a refused client
        return True
    except OSError:
        return False


@contextlib.contextmanager
def daemon(ferry, address, token, log, env=None):
    """`ferry serve` on `address` for the duration of the block; its output goes to `log`."""
    cmd = [ferry, "serve", "--listen", address, "--token-file", token] + (["--allow-root"] if os.geteuid() == 0 else [])
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        for _ in range(200):
            if proc.poll() is not None:
                raise SystemExit(f"the daemon did not start on {address} (see {getattr(log, 'name', 'its log')})")
            if listening(address):
                break
            time.sleep(0.05)
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def mpiexec_args(mpiexec):
    """Open MPI's mpiexec needs --oversubscribe and no binding to share two cores; Hydra does not."""
    return ["--oversubscribe", "--bind-to", "none"] if mpiexec.endswith("mpiexec") else []
