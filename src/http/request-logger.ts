import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from "pino";

type LogMethod = "fatal" | "error" | "warn" | "info" | "debug" | "trace";

/**
 * A request's logger that becomes a pino child (with the request id) only when a line is
 * written at an enabled level. Most requests log nothing below the server's level, and a pino
 * child per request (its bindings serialised and redacted) was a few per cent of a small
 * request's CPU.
 */
class RequestLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: Logger | undefined;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): LevelWithSilentOrString {
    return this.#options.level ?? this.#parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.#logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#write("fatal", args);
  }
  error(...args: unknown[]): void {
    this.#write("error", args);
  }
  warn(...args: unknown[]): void {
    this.#write("warn", args);
  }
  info(...args: unknown[]): void {
    this.#write("info", args);
  }
  debug(...args: unknown[]): void {
    this.#write("debug", args);
  }
  trace(...args: unknown[]): void {
    this.#write("trace", args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.#logger().child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    // A route's own level applies only through the child, so such a logger makes it first.
    const decides = this.#child || this.#options.level ? this.#logger() : this.#parent;
    return decides.isLevelEnabled(level);
  }

  #write(method: LogMethod, args: unknown[]): void {
    if (!this.isLevelEnabled(method)) return;
    (this.#logger()[method] as (...a: unknown[]) => void)(...args);
  }

  #logger(): Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }
}

/** Fastify's `childLoggerFactory`: each request's logger is made on its first enabled line. */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;
}
