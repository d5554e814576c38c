import type { onRequestHookHandler, preValidationHookHandler, RouteOptions } from "fastify";
import type { App } from "./types.js";

/**
 * Adds `hook` to the `onRequest` hooks of each route added from now on that `applies` to, after
 * the hooks it has (call it in the order the hooks should run, before the routes). A global hook
 * that only some routes need would run on every request, reading the request's route to find out
 * whether it applies; Fastify's `request.routeOptions` builds a new object each time it is read.
 */
export function addRouteOnRequest(
  app: App,
  applies: (route: RouteOptions) => boolean,
  hook: onRequestHookHandler,
): void {
  addRouteHook(app, "onRequest", applies, () => hook);
}

/** As `addRouteOnRequest`, with a hook made for each route from what it is (its methods, its URL). */
export function addRouteOnRequestFor(
  app: App,
  applies: (route: RouteOptions) => boolean,
  hookFor: (route: RouteOptions) => onRequestHookHandler,
): void {
  addRouteHook(app, "onRequest", applies, hookFor);
}

/** As `addRouteOnRequest`, for the `preValidation` hooks: after the body is parsed, before it is validated. */
export function addRoutePreValidation(
  app: App,
  applies: (route: RouteOptions) => boolean,
  hook: preValidationHookHandler,
): void {
  addRouteHook(app, "preValidation", applies, () => hook);
}

function addRouteHook<Name extends "onRequest" | "preValidation">(
  app: App,
  name: Name,
  applies: (route: RouteOptions) => boolean,
  hookFor: (route: RouteOptions) => NonNullable<RouteOptions[Name]>,
): void {
  app.addHook("onRoute", (route) => {
    if (!applies(route)) return;
    const hook = hookFor(route);
    const own = route[name];
    route[name] = [...(own === undefined ? [] : [own].flat()), hook] as RouteOptions[Name];
  });
}

/** The methods of a route, upper case; Fastify takes one or several. */
export function methodsOf(route: Pick<RouteOptions, "method">): string[] {
  return [route.method].flat().map((method) => method.toUpperCase());
}

/** Methods whose requests carry a body. */
export const BODY_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH"]);

/** Whether a route takes a method whose requests carry a body. */
export function takesBody(route: Pick<RouteOptions, "method">): boolean {
  return methodsOf(route).some((method) => BODY_METHODS.has(method));
}
