import http from 'node:http';

type HeaderList = (string | number | readonly string[])[];

/**
 * The server's response class. `baseHeaders`, set when a request arrives (the MCP fast path's
 * request id and fixed security headers), go out with whatever the answer's own `writeHead`
 * names, in that one call. Setting them with `setHeader` instead costs a validated store per
 * header, and once any header was set that way Node's `writeHead` sets every header it is given
 * through `setHeader` too: together about 2 % of the gateway's CPU per `tools/call`. Headers set
 * with `setHeader` still work as usual (Node merges them).
 */
export class GatewayResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {
  /** Header names and values, alternating, sent with the status line. */
  baseHeaders: string[] | undefined;

  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const base = this.baseHeaders;
    if (base === undefined) return super.writeHead(statusCode, ...(rest as [])) as this;
    this.baseHeaders = undefined;
    const message = typeof rest[0] === 'string' ? rest[0] : undefined;
    const given = (message === undefined ? rest[0] : rest[1]) as http.OutgoingHttpHeaders | HeaderList | undefined;
    const headers: HeaderList = base.slice();
    if (Array.isArray(given)) headers.push(...given);
    else if (given) for (const name in given) if (given[name] !== undefined) headers.push(name, given[name] as string | number | string[]);
    return (
      message === undefined ? super.writeHead(statusCode, headers as never) : super.writeHead(statusCode, message, headers as never)
    ) as this;
  }
}
