"""Runs the tools of a tools.py for agent-platform, speaking JSON lines on stdin/stdout.

Started as `python3 bridge.py /path/to/tools.py`. Standard library only, Python 3.8+.

Child -> parent, one JSON object per line:
  {"type": "ready", "tools": [definition, ...]}
  {"type": "load_error", "error": "SyntaxError: ...", "line": 3}   (then the process exits)
  {"id": 7, "ok": true, "result": ...}
  {"id": 7, "ok": false, "error": "ValueError: ..."}
Parent -> child:
  {"id": 7, "name": "get_weather", "args": {...}}
  {"cancel": 7}
End of stdin ends the process.

The user's print() and anything else written to stdout goes to stderr: the protocol has the original stdout to itself.
"""

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


def open_protocol_channel():
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # even os.write(1, ...) and C extensions now reach stderr, not the protocol
    sys.stdout = sys.stderr
    return channel


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
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


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
            text = json.dumps(message, ensure_ascii=False, default=jsonable)
        except (TypeError, ValueError) as error:
            text = json.dumps({"id": message.get("id"), "ok": False, "error": f"the result is not JSON: {error}"})
        self.channel.write(text + "\n")
        self.channel.flush()

    def receive(self, line):
        try:
            request = json.loads(line)
        except ValueError:
            print(f"bridge: ignoring a line that is not JSON: {line[:200]!r}", file=sys.stderr)
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


def read_requests(loop, bridge, channel):
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").strip()
        if line:
            loop.call_soon_threadsafe(bridge.receive, line)
    loop.call_soon_threadsafe(finish, channel)


def finish(channel):
    channel.flush()
    os._exit(0)  # do not wait for sync tools still running in threads


def main():
    channel = open_protocol_channel()
    path = os.path.abspath(sys.argv[1])
    try:
        definitions, functions = load_tools(path)
    except LoadError as error:
        channel.write(json.dumps({"type": "load_error", "error": str(error), "line": error.line}) + "\n")
        channel.flush()
        os._exit(1)
    except Exception:  # a bug of the bridge itself
        traceback.print_exc()
        os._exit(1)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="tool"))
    bridge = Bridge(channel, functions, loop)
    bridge.send({"type": "ready", "tools": definitions})
    threading.Thread(target=read_requests, args=(loop, bridge, channel), daemon=True).start()
    loop.run_forever()


if __name__ == "__main__":
    main()
