/**
 * The notebook kernel's driver, uploaded with each kernel job (see its docstring). Kept as the
 * Python source itself; String.raw leaves its escapes as Python reads them.
 */
export const DRIVER_PY = String.raw`"""The FirecREST notebook kernel's driver: runs a notebook's cells in one Python process on the
compute node, with nothing listening on a port. Requests arrive as files in 'in/' (a cell's code,
an interrupt, a restart, a shutdown), written by the client through FirecREST; replies go to one
append-only log, 'out.log', one JSON message a line, read by the client by byte offset. Standard
library only; IPython's formatters are used for rich display when the cluster has IPython.

Exit status 75 asks the job script to start a fresh process (restart) in the same job.
"""
import base64
import io
import json
import linecache
import os
import signal
import socket
import sys
import threading
import time
import traceback

RESTART = 75
POLL_S = 0.05
FLUSH_S = 0.05
MAX_STREAM_CHUNK = 64 * 1024

here = os.path.dirname(os.path.abspath(__file__))
inbox = os.path.join(here, "in")
log_path = os.path.join(here, "out.log")
seq_path = os.path.join(here, "seq")
generation = int(os.environ.get("F7T_GENERATION", "0"))

log_lock = threading.Lock()
log_fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)


def last_seq():
    # Message numbers go on across restarts: the client takes each once, in order.
    try:
        with open(seq_path) as f:
            return int(f.read().strip() or "0")
    except (OSError, ValueError):
        return 0


seq = last_seq()


def emit(msg):
    global seq
    with log_lock:
        seq += 1
        msg["seq"] = seq
        data = (json.dumps(msg, separators=(",", ":"), ensure_ascii=True) + "\n").encode("ascii")
        while data:
            n = os.write(log_fd, data)
            data = data[n:]
        with open(seq_path, "w") as f:
            f.write(str(seq))


class Stream(io.TextIOBase):
    """stdout or stderr of the running cell: buffered briefly, sent as 'stream' messages."""

    def __init__(self, name):
        self.name = name
        self.cell = None
        self.buf = []
        self.size = 0
        self.lock = threading.Lock()

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            s = str(s)
        with self.lock:
            self.buf.append(s)
            self.size += len(s)
            due = self.size >= MAX_STREAM_CHUNK
        # A large write goes at once; the rest within FLUSH_S (the flusher thread).
        if due:
            self.flush()
        return len(s)

    def flush(self):
        with self.lock:
            if not self.buf:
                return
            text = "".join(self.buf)
            self.buf = []
            self.size = 0
        emit({"type": "stream", "cell": self.cell, "name": self.name, "text": text})


out = Stream("stdout")
err = Stream("stderr")


def flusher():
    while True:
        time.sleep(FLUSH_S)
        out.flush()
        err.flush()


formatter = None
formatter_ready = threading.Event()


def load_formatter():
    """IPython's formatters, where the cluster has IPython (imported beside the first cells: it is slow)."""
    global formatter
    try:
        from IPython.core.formatters import DisplayFormatter

        formatter = DisplayFormatter()
    except Exception:  # noqa: BLE001 - any import failure means: no IPython
        formatter = None
    formatter_ready.set()


def mime_bundle(obj):
    formatter_ready.wait()
    if formatter is not None:
        try:
            data, _ = formatter.format(obj)
            if data:
                return {k: v for k, v in data.items() if isinstance(v, (str, bytes))}
        except Exception:  # noqa: BLE001
            pass
    data = {"text/plain": repr(obj)}
    for mime, name in (("text/html", "_repr_html_"), ("image/png", "_repr_png_"), ("image/svg+xml", "_repr_svg_"), ("text/markdown", "_repr_markdown_")):
        f = getattr(obj, name, None)
        if callable(f):
            try:
                v = f()
            except Exception:  # noqa: BLE001
                v = None
            if v is not None:
                data[mime] = v
    return data


current_cell = [None]


def display(*objs, **_kw):
    for obj in objs:
        publish(mime_bundle(obj))


def publish(data):
    out.flush()
    err.flush()
    clean = {}
    for mime, v in data.items():
        if isinstance(v, bytes):
            clean[mime] = {"b64": base64.b64encode(v).decode("ascii")}
        elif mime == "image/png":
            clean[mime] = {"b64": v}
        else:
            clean[mime] = str(v)
    emit({"type": "display", "cell": current_cell[0], "data": clean})


def show_figures():
    """Figures a cell left open (matplotlib, Agg backend), as PNG, then closed: the inline behaviour."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    try:
        for num in plt.get_fignums():
            fig = plt.figure(num)
            buf = io.BytesIO()
            fig.savefig(buf, format="png", bbox_inches="tight")
            publish({"image/png": buf.getvalue(), "text/plain": repr(fig)})
        plt.close("all")
    except Exception as e:  # noqa: BLE001
        err.write("figure not shown: %s\n" % e)


namespace = {"__name__": "__main__", "display": display}
busy = threading.Event()
requests = []
requests_lock = threading.Condition()
stopping = [None]
me = os.path.abspath(__file__)


def run_cell(cell, code, count):
    import ast

    current_cell[0] = cell
    out.cell = err.cell = cell
    status = "ok"
    name = "<cell %d>" % count
    # Tracebacks show the cell's lines.
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    try:
        tree = ast.parse(code, filename=name, mode="exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, name, "exec"), namespace)
        if last is not None:
            value = eval(compile(last, name, "eval"), namespace)
            if value is not None:
                namespace["_"] = value
                publish(mime_bundle(value))
        show_figures()
    except KeyboardInterrupt:
        status = "interrupted"
        out.flush()
        err.flush()
        emit({"type": "error", "cell": cell, "ename": "KeyboardInterrupt", "evalue": "interrupted", "traceback": ["KeyboardInterrupt: the cell was interrupted; the kernel's state is kept"]})
    except BaseException as e:  # noqa: BLE001 - a cell's SystemExit is the cell's error, not the kernel's end
        status = "error"
        out.flush()
        err.flush()
        tb = traceback.format_exception(type(e), e, e.__traceback__)
        # The driver's own frames are not the user's.
        tb = [line for line in tb if me not in line]
        emit({"type": "error", "cell": cell, "ename": type(e).__name__, "evalue": str(e), "traceback": tb})
    finally:
        out.flush()
        err.flush()
        current_cell[0] = None
        out.cell = err.cell = None
    emit({"type": "done", "cell": cell, "status": status, "count": count})


def interrupt_cell():
    # A real SIGINT to the main thread: a blocking call (time.sleep, a read) returns at once.
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)


def read_requests():
    """Takes request files in name order, once each; a file still being written waits."""
    seen = set()
    while True:
        try:
            names = sorted(n for n in os.listdir(inbox) if n.endswith(".json") and n not in seen)
        except OSError:
            names = []
        for name in names:
            path = os.path.join(inbox, name)
            try:
                with open(path) as f:
                    req = json.load(f)
            except (OSError, ValueError):
                continue  # not whole yet
            if not isinstance(req, dict) or req.get("end") is not True:
                continue
            seen.add(name)
            try:
                os.unlink(path)
            except OSError:
                pass
            kind = req.get("type")
            if kind == "interrupt":
                if busy.is_set():
                    interrupt_cell()
            elif kind in ("shutdown", "restart"):
                stopping[0] = kind
                with requests_lock:
                    requests_lock.notify_all()
                if busy.is_set():
                    interrupt_cell()
                # What comes after is for the next process (restart) or for no one.
                return
            elif kind == "execute" and isinstance(req.get("code"), str):
                with requests_lock:
                    requests.append(req)
                    requests_lock.notify_all()
        time.sleep(POLL_S)


def main():
    os.makedirs(inbox, exist_ok=True)
    # Interrupt raises KeyboardInterrupt in the cell, also where the job started us with SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.stdout = out
    sys.stderr = err
    threading.Thread(target=flusher, daemon=True).start()
    threading.Thread(target=read_requests, daemon=True).start()
    threading.Thread(target=load_formatter, daemon=True).start()
    emit({"type": "status", "state": "idle", "host": socket.gethostname(), "pid": os.getpid(), "python": sys.version.split()[0], "generation": generation})
    while True:
        try:
            with requests_lock:
                while not requests and stopping[0] is None:
                    requests_lock.wait(1.0)
                if stopping[0] is not None:
                    break
                req = requests.pop(0)
        except KeyboardInterrupt:
            continue  # an interrupt that came between cells
        try:
            busy.set()
            emit({"type": "status", "state": "busy", "cell": req.get("cell")})
            run_cell(req.get("cell"), req["code"], int(req.get("count") or 0))
        except KeyboardInterrupt:
            pass  # an interrupt that came as the cell ended
        finally:
            busy.clear()
        try:
            emit({"type": "status", "state": "idle"})
        except KeyboardInterrupt:
            emit({"type": "status", "state": "idle"})
    kind = stopping[0]
    with requests_lock:
        left = list(requests)
    for req in left:
        # Queued behind a restart or a shutdown: said, so nothing waits for them.
        emit({"type": "done", "cell": req.get("cell"), "status": "aborted", "count": int(req.get("count") or 0)})
    emit({"type": "status", "state": "restarting" if kind == "restart" else "ended"})
    os._exit(RESTART if kind == "restart" else 0)


if __name__ == "__main__":
    main()
`;
