"""A real MCP client for Toolgate's tests: the official MCP Python SDK against a Toolgate endpoint.

    python mcp_client.py relay  <url> sse|http   # sampling, elicitation, roots and logging through one session
    python mcp_client.py resume <url>            # a slow call whose stream the test cuts mid-call

Prints one JSON object on stdout with what the client saw; exits non-zero on any failure.
"""

import json
import sys

import anyio
import mcp.types as types
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

ROOT_URI = "file:///python/client/root"


async def sampling(_context, params: types.CreateMessageRequestParams):
    asked = params.messages[0].content
    text = asked.text if isinstance(asked, types.TextContent) else "?"
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"python sampled: {text}"),
        model="python-test-model",
    )


async def elicitation(_context, _params: types.ElicitRequestParams):
    return types.ElicitResult(action="accept", content={"username": "py-user", "email": "py@example.com"})


async def roots(_context):
    return types.ListRootsResult(roots=[types.Root(uri=ROOT_URI, name="python root")])


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def transport(url: str, kind: str):
    return sse_client(url) if kind == "sse" else streamable_http_client(url)


async def relay(url: str, kind: str) -> dict:
    logged: list[str] = []

    async def logging(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(json.dumps(params.data))

    async with transport(url, kind) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(
            read,
            write,
            sampling_callback=sampling,
            elicitation_callback=elicitation,
            list_roots_callback=roots,
            logging_callback=logging,
        ) as session:
            init = await session.initialize()
            out = {"protocol": init.protocol_version}
            out["sampling"] = text_of(await session.call_tool("test_sampling", {"prompt": "hello from python"}))
            out["elicitation"] = text_of(await session.call_tool("test_elicitation", {"message": "who are you?"}))
            out["roots"] = text_of(await session.call_tool("list_roots", {}))
            out["logging"] = text_of(await session.call_tool("test_tool_with_logging", {}))
            out["logged"] = logged
            return out


async def resume(url: str) -> dict:
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            progress: list[float] = []

            async def on_progress(value: float, _total: float | None, _message: str | None) -> None:
                # The first progress event tells the test (stderr) the call's stream is open: it may cut it now.
                if not progress:
                    print("streaming", file=sys.stderr, flush=True)
                progress.append(value)

            result = await session.call_tool("sleep", {"ms": 1500}, progress_callback=on_progress)
            return {"text": text_of(result), "is_error": bool(result.is_error), "progress": len(progress)}


async def main() -> None:
    mode, url = sys.argv[1], sys.argv[2]
    if mode == "relay":
        out = await relay(url, sys.argv[3])
    elif mode == "resume":
        out = await resume(url)
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    anyio.run(main)
