import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LimitPolicyName, Scope } from './api-limits.js';
import type { BillableRoute } from '../records/quota.js';
import type { JsonSchema } from './schemas/common.js';

/**
 * One declaration per route: fastify validates requests with its schemas, the auth hook reads
 * its access rules, and the OpenAPI document is generated from the same objects, so the
 * published contract and the enforced one cannot drift apart.
 */

export interface RouteAccess {
  /** null: no authentication (health, openapi, retired routes). */
  scope: Scope | null;
  policy: LimitPolicyName | null;
  /** Counted against the key's monthly quota. */
  billable: BillableRoute | null;
}

export interface ResponseSpec {
  description: string;
  schema?: JsonSchema;
  /** Default application/json. */
  contentType?: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** fastify syntax: /api/v1/jobs/:job_id */
  url: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: RouteAccess;
  body?: JsonSchema;
  /** Default application/json. */
  bodyContentType?: string;
  /**
   * A large JSON body reaches the handler unparsed and unchecked, as a `RawJsonBody`, for an
   * analysis worker to parse and check against `body` (docs/security.md "Measured").
   */
  largeBodyOffThread?: boolean;
  /**
   * The handler checks the body against `body` and the input's rules in one call, so that one bad
   * request gets the very answer the CLI gives (docs/api.md "One schema per input"); fastify
   * then only parses it. `body` still documents it.
   */
  bodyCheckedByHandler?: boolean;
  bodyLimit?: number;
  params?: JsonSchema;
  querystring?: JsonSchema;
  headers?: JsonSchema;
  responses: Record<string, ResponseSpec>;
  deprecated?: boolean;
  /** A GET whose HEAD (answered by fastify) is documented as its own operation. */
  head?: { operationId: string; summary: string };
  /**
   * The route answers from the request's headers alone (retired routes): its handler runs in
   * `onRequest`, so no body is read or inflated (docs/security.md "Bodies").
   */
  answersFromHeaders?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    largeBodyOffThread?: boolean;
    bodyCheckedByHandler?: boolean;
  }
}

/** The body's type follows from the route's TypeBox body schema (the same object fastify validates with). */
type BodyOf<S> = S extends TSchema ? Static<S> : unknown;
export type RouteHandler<S = undefined> = (request: FastifyRequest<{ Body: BodyOf<S> }>, reply: FastifyReply) => Promise<unknown>;

export class RouteRegistry {
  readonly specs: RouteSpec[] = [];

  add<S extends TSchema | JsonSchema | undefined = undefined>(
    app: FastifyInstance,
    spec: RouteSpec & { body?: S },
    handler: RouteHandler<S>,
  ): void {
    this.specs.push(spec);
    // JSON answers are serialized by their documented schema: what is sent is what is declared.
    const response = Object.fromEntries(
      Object.entries(spec.responses)
        .filter(([, answer]) => answer.schema !== undefined && (answer.contentType ?? 'application/json').includes('json'))
        .map(([status, answer]) => [status, answer.schema!]),
    );
    app.route({
      method: spec.method,
      url: spec.url,
      bodyLimit: spec.bodyLimit,
      schema: {
        ...(spec.body && spec.bodyCheckedByHandler !== true ? { body: spec.body } : {}),
        ...(spec.params ? { params: spec.params } : {}),
        ...(spec.querystring ? { querystring: spec.querystring } : {}),
        ...(spec.headers ? { headers: spec.headers } : {}),
        ...(Object.keys(response).length > 0 ? { response } : {}),
      },
      config: {
        access: spec.access,
        largeBodyOffThread: spec.largeBodyOffThread === true,
        bodyCheckedByHandler: spec.bodyCheckedByHandler === true,
      },
      ...(spec.answersFromHeaders === true ? { onRequest: handler as never } : {}),
      handler,
    });
  }
}
