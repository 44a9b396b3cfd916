"""Runs a command in a pseudo-terminal, as a user at a terminal would (test/e2e/cli/terminal.test.ts).

Usage: pty-run.py SPEC_JSON  where SPEC_JSON = {"argv": [...], "cwd": "...", "env": {...},
"interrupt_after": "regex or null", "timeout_s": 120, "columns": 100}. When interrupt_after matches the output,
Ctrl-C is typed (the terminal sends SIGINT to the foreground process group). Prints
{"code": exit code, "signal": signal or null, "output": everything written to the terminal}.
"""
import fcntl, json, os, pty, re, select, signal, struct, sys, termios, time

spec = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid != 0:
    # A real terminal has a size: 100 columns (unless the spec says), 30 rows.
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, spec.get("columns", 100), 0, 0))
if pid == 0:
    os.chdir(spec["cwd"])
    env = dict(os.environ)
    # A null value removes the variable: a user's terminal has no CI=true, for instance.
    for key, value in spec.get("env", {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    os.execvpe(spec["argv"][0], spec["argv"], env)

output = b""
pattern = re.compile(spec["interrupt_after"]) if spec.get("interrupt_after") else None
# "type_after": [regex, text] types text (an answer to a prompt) once regex appears.
typing = (re.compile(spec["type_after"][0]), spec["type_after"][1]) if spec.get("type_after") else None
typed = False
interrupted = False
deadline = time.time() + spec.get("timeout_s", 120)
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.2)
    if ready:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    if pattern and not interrupted and pattern.search(output.decode("utf-8", "replace")):
        os.write(fd, b"\x03")
        interrupted = True
    if typing and not typed and typing[0].search(output.decode("utf-8", "replace")):
        os.write(fd, typing[1].encode())
        typed = True
else:
    os.kill(pid, signal.SIGKILL)
_, status = os.waitpid(pid, 0)
code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
sys.stdout.write(json.dumps({"code": code, "signal": sig, "output": output.decode("utf-8", "replace")}) + "\n")
