/**
 * A protocol served inside the HTTP API (MCP at /mcp): the HTTP side authenticates the request like any
 * other and hands it over with the caller; the protocol's own module answers it. Neither imports the other:
 * they meet where the worker is assembled.
 */
import type { Caller } from "./caller";
import type { Services } from "./services";

export interface EndpointContext {
  services: Services;
  caller: Caller;
  requestId: string;
  /** The bearer token as presented. */
  token: string;
  /** RFC 9728 metadata for this resource, when an authorization server is configured. */
  resourceMetadataUrl?: string;
}

export interface ProtocolEndpoint {
  /** Checks made before authentication (e.g. refusing foreign browser origins); throws an AppError. */
  admit?(request: Request, services: Services): void;
  /**
   * Whether a browser page of `origin` may call the endpoint at all; cross-origin (CORS) answers are given
   * only to origins both this and the API's CORS setting allow. Every origin when absent.
   */
  allowsOrigin?(origin: string, services: Services): boolean;
  /** The methods it serves, for CORS preflights (the endpoint answers every other method itself). */
  methods: readonly string[];
  handle(request: Request, context: EndpointContext): Promise<Response>;
}
