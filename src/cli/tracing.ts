/**
 * Trace export for the `bub` command: when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (and no tracer provider is registered yet — with
 * `OTEL_DENO=true` Deno's own one exports), the OpenTelemetry SDK and an OTLP/HTTP exporter are
 * imported (optional dependencies, loaded only then) and registered; {@link CliTracing.shutdown}
 * flushes the spans before the command exits.
 *
 * Settings (the standard OpenTelemetry variables):
 * - `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: the traces URL, as is; else
 *   `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`.
 * - `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (else `OTEL_EXPORTER_OTLP_PROTOCOL`): `http/protobuf`
 *   (default) or `http/json`.
 * - `OTEL_SERVICE_NAME`: the `service.name` resource attribute, default `bub`;
 *   `OTEL_RESOURCE_ATTRIBUTES` adds attributes.
 * - `OTEL_SDK_DISABLED=true`: no export.
 * - Headers, timeout and compression: `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS` / `_TIMEOUT` /
 *   `_COMPRESSION`, read by the exporter.
 *
 * @module
 */
import process from "node:process";
import { getLogger } from "../_internal/log.ts";
import { BubError } from "../kernel/errors.ts";
import { tracingEnabled } from "../tracing/tracer.ts";
import { VERSION } from "../version.ts";

const logger = getLogger(["bub", "cli"]);

/**
 * How long {@link CliTracing.shutdown} waits for the last export (the exporter retries an
 * unreachable collector for longer: the command does not wait for that).
 */
const SHUTDOWN_WAIT_MS = 3000;

/** The OTLP protocols the CLI can export with. */
export const OTLP_PROTOCOLS: readonly string[] = ["http/protobuf", "http/json"];

/** The trace export the CLI set up. */
export interface CliTracing {
  /** The traces URL spans are sent to. */
  readonly url: string;
  /** `http/protobuf` or `http/json`. */
  readonly protocol: string;
  /** Exports the remaining spans and unregisters the provider. Never throws. */
  shutdown(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

function setting(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

/**
 * The traces URL the environment asks for, or null when tracing export is not configured.
 *
 * @example
 * ```ts ignore
 * tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" }); // "http://127.0.0.1:4318/v1/traces"
 * ```
 */
export function tracesUrl(env: Env): string | null {
  const traces = setting(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  if (traces !== null) return traces;
  const base = setting(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  return base === null ? null : `${base.replace(/\/+$/, "")}/v1/traces`;
}

/**
 * The OTLP protocol of trace export.
 *
 * @throws {BubError} (`config`) for a protocol other than `http/protobuf` or `http/json`
 */
export function tracesProtocol(env: Env): string {
  const name = setting(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") !== null
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = setting(env, name) ?? "http/protobuf";
  if (!OTLP_PROTOCOLS.includes(protocol)) {
    throw new BubError(
      "config",
      `Cannot export traces: ${name}=${JSON.stringify(protocol)} is not supported; ` +
        `use ${OTLP_PROTOCOLS.join(" or ")}`,
      { [name]: protocol },
    );
  }
  return protocol;
}

/**
 * Registers the SDK with an OTLP/HTTP exporter when the environment asks for trace export (see
 * the module doc); null when it does not, when a tracer provider is already registered, or when
 * the optional OpenTelemetry packages are not installed (logged as a warning).
 *
 * @throws {BubError} (`config`) for an unsupported protocol
 */
export async function startCliTracing(env: Env = process.env): Promise<CliTracing | null> {
  const url = tracesUrl(env);
  if (url === null || setting(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return null;
  const protocol = tracesProtocol(env);
  if (tracingEnabled()) return null;
  let modules;
  try {
    modules = await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/resources"),
      protocol === "http/json"
        ? import("@opentelemetry/exporter-trace-otlp-http")
        : import("@opentelemetry/exporter-trace-otlp-proto"),
    ]);
  } catch (error) {
    logger.warn(
      "Traces are not exported: the OpenTelemetry SDK could not be loaded ({error}); install " +
        "@opentelemetry/sdk-trace, @opentelemetry/resources and @opentelemetry/exporter-trace-otlp-proto",
      { error },
    );
    return null;
  }
  const [api, sdk, resources, exporterModule] = modules;
  const resource = resources.resourceFromAttributes({
    "service.name": setting(env, "OTEL_SERVICE_NAME") ?? "bub",
    "service.version": VERSION,
  }).merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const exporter = new exporterModule.OTLPTraceExporter({ url });
  const provider = new sdk.TracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  if (!api.trace.setGlobalTracerProvider(provider)) return null;
  // Export failures reach the API's diagnostic logger: show them as one warning each.
  const warn = (message: string) => logger.warn("Trace export: {message}", { message });
  const quiet = () => {};
  api.diag.setLogger(
    { error: warn, warn, info: quiet, debug: quiet, verbose: quiet },
    api.DiagLogLevel.WARN,
  );
  let done: Promise<void> | null = null;
  return {
    url,
    protocol,
    shutdown() {
      done ??= (async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            logger.warn(
              "Trace export to {url} did not finish within {ms} ms (is the collector running?)",
              { url, ms: SHUTDOWN_WAIT_MS },
            );
            resolve();
          }, SHUTDOWN_WAIT_MS);
        });
        try {
          await Promise.race([provider.shutdown(), timeout]);
        } catch (error) {
          logger.warn("Trace export failed: {error}", { error });
        } finally {
          clearTimeout(timer);
          api.trace.disable();
          api.diag.disable();
        }
      })();
      return done;
    },
  };
}
