"""Runs the tools of a tools.py for agent-platform, speaking JSON lines on stdin/stdout.

Started as `python3 bridge.py /path/to/tools.py`. Standard library only, Python 3.8+.

Child -> parent, one JSON object per line:
  {"type": "ready", "tools": [definition, ...]}
  {"type": "load_error", "error": "SyntaxError: ...", "line": 3}   (then the process exits)
  {"id": 7, "ok": true, "result": ...}
  {"id": 7, "ok": false, "error": "ValueError: ..."}
  {"pong": 3}                                                      (the answer to a ping, from the event loop)
Parent -> child:
  {"id": 7, "name": "get_weather", "args": {...}}
  {"cancel": 7}
  {"ping": 3}
End of stdin ends the process.

Ctrl-C in the terminal reaches the whole process group: this process ignores SIGINT, the parent ends it.

The user's print() and anything else written to stdout goes to stderr: the protocol has the original stdout to itself.
"""

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)  # first, so no KeyboardInterrupt traceback even while loading

import asyncio
import concurrent.futures
import dataclasses
import functools
import importlib.util
import inspect
import json
import os
import sys
import threading
import traceback


# Sync tools run on threads made as needed and reused when idle: a call the parent gave up on may block its thread for
# good, and it must not leave the next calls waiting for a free one.
MAX_TOOL_THREADS = 1024


def open_protocol_channels():
    """The protocol's own copies of stdin and stdout; fd 0 becomes /dev/null and fd 1 stderr, so tools cannot touch them."""
    requests = os.fdopen(os.dup(0), "rb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # even os.write(1, ...) and C extensions now reach stderr, not the protocol
    sys.stdout = sys.stderr
    return requests, channel


def jsonable(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if hasattr(value, "model_dump"):  # pydantic models
        return value.model_dump()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def describe(error):
    try:
        message = str(error)
    except Exception:  # an exception whose __str__ raises still gets reported
        message = "(its message could not be read)"
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def encode(message):
    """One protocol line as bytes; raises for what JSON cannot carry (NaN, lone surrogates, too deep, a bad __str__)."""
    text = json.dumps(message, ensure_ascii=False, allow_nan=False, default=jsonable, separators=(",", ":"))
    return (text + "\n").encode("utf-8")


def line_in(path, tb):
    line = None
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def load_tools(path):
    """Returns (definitions, functions by name), or raises LoadError."""
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)  # so the tools file can import its neighbours
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        where = os.path.abspath(error.filename) if error.filename else path
        if where == path:
            raise LoadError(f"{type(error).__name__}: {error.msg}", error.lineno)
        detail = f"{type(error).__name__} in {where}, line {error.lineno}: {error.msg}"
        raise LoadError(detail, line_in(path, error.__traceback__))
    except BaseException as error:  # SystemExit and KeyboardInterrupt at import are load errors too
        raise LoadError(describe(error), line_in(path, error.__traceback__))

    tools = getattr(module, "tools", None)
    if tools is None:
        raise LoadError("the module defines no `tools` (expected tools = [(definition, async_function), ...])")
    if not isinstance(tools, (list, tuple)):
        raise LoadError("`tools` must be a list of (definition, function) pairs")
    definitions, functions = [], {}
    for index, pair in enumerate(tools):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not callable(pair[1]):
            raise LoadError(f"tools[{index}] must be a (definition, function) pair")
        definition, function = pair
        definitions.append(definition)
        if isinstance(definition, dict) and isinstance(definition.get("name"), str):
            functions.setdefault(definition["name"], function)
    return definitions, functions


class LoadError(Exception):
    def __init__(self, message, line=None):
        super().__init__(message)
        self.line = line


class Bridge:
    def __init__(self, channel, functions, loop):
        self.channel = channel
        self.functions = functions
        self.loop = loop
        self.tasks = {}

    def send(self, message):
        try:
            line = encode(message)
        except Exception as error:  # RecursionError too: the call gets an error, never silence
            reason = f"the result cannot be sent as JSON: {describe(error)}"
            line = (json.dumps({"id": message.get("id"), "ok": False, "error": reason}) + "\n").encode("ascii")
        self.channel.write(line)
        self.channel.flush()

    def receive(self, line):
        try:
            request = json.loads(line)
        except ValueError:
            print(f"bridge: ignoring a line that is not JSON: {line[:200]!r}", file=sys.stderr)
            return
        if "ping" in request:
            self.send({"pong": request["ping"]})
            return
        if "cancel" in request:
            task = self.tasks.get(request["cancel"])
            if task is not None:
                task.cancel()
            return
        call_id = request.get("id")
        task = self.loop.create_task(self.run(call_id, request.get("name"), request.get("args") or {}))
        self.tasks[call_id] = task
        task.add_done_callback(lambda _: self.tasks.pop(call_id, None))

    async def run(self, call_id, name, args):
        function = self.functions.get(name)
        if function is None:
            self.send({"id": call_id, "ok": False, "error": f"unknown tool {name!r}"})
            return
        try:
            if inspect.iscoroutinefunction(function):
                result = await function(**args)
            else:
                # A plain def runs in a thread so it cannot block the other calls on the loop.
                result = await self.loop.run_in_executor(None, functools.partial(function, **args))
            if inspect.isawaitable(result):
                result = await result
        except asyncio.CancelledError:
            return  # the caller gave up and ignores any answer
        except BaseException as error:  # a tool's SystemExit must not end the bridge either
            self.send({"id": call_id, "ok": False, "error": describe(error)})
            return
        self.send({"id": call_id, "ok": True, "result": result})


def read_requests(requests, loop, bridge):
    try:
        for raw in requests:
            line = raw.decode("utf-8", "replace").strip()
            if line:
                loop.call_soon_threadsafe(bridge.receive, line)
    except BaseException:
        traceback.print_exc()
        os._exit(1)  # the parent can no longer reach us: end, and it starts a new process on its next call
    loop.call_soon_threadsafe(finish)


def finish():
    os._exit(0)  # do not wait for sync tools still running in threads


def main():
    requests, channel = open_protocol_channels()
    path = os.path.abspath(sys.argv[1])
    try:
        definitions, functions = load_tools(path)
    except LoadError as error:
        channel.write((json.dumps({"type": "load_error", "error": str(error), "line": error.line}) + "\n").encode())
        channel.flush()
        os._exit(1)
    except Exception:  # a bug of the bridge itself
        traceback.print_exc()
        os._exit(1)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=MAX_TOOL_THREADS, thread_name_prefix="tool")
    loop.set_default_executor(executor)
    try:
        ready = encode({"type": "ready", "tools": definitions})
    except Exception as error:
        problem = f"the tool definitions cannot be sent as JSON: {describe(error)}"
        ready = (json.dumps({"type": "load_error", "error": problem}) + "\n").encode("ascii")
        channel.write(ready)
        channel.flush()
        os._exit(1)
    channel.write(ready)
    channel.flush()
    bridge = Bridge(channel, functions, loop)
    threading.Thread(target=read_requests, args=(requests, loop, bridge), daemon=True).start()
    loop.run_forever()


if __name__ == "__main__":
    main()
