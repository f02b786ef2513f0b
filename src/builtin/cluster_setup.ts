/**
 * `bub gateway` over a PostgreSQL tape store runs as one instance of a cluster: this builds the
 * {@link ClusterGateway} from the settings (`tape_store`, `cluster_lease_seconds`,
 * `cluster_poll_seconds`, the Telegram token naming the elected poller), or null for other stores.
 *
 * @module
 */
import type { ClusterGateway } from "../channels/cluster/cluster_gateway.ts";
import type { ChannelManagerOptions } from "../channels/manager.ts";
import type { BubHost } from "./host.ts";
import type { BuiltinRuntime } from "./runtime.ts";
import { loadTapeStoreSettings, loadTelegramSettings } from "./settings.ts";
import { parseTapeStoreChoice } from "./tape_store_setting.ts";

/**
 * The cluster instance for a PostgreSQL `tape_store`, else null (single-instance gateway). The
 * cluster code is imported only then.
 */
export async function clusterGatewayFor(
  framework: BubHost,
  runtime: BuiltinRuntime,
  options: ChannelManagerOptions,
): Promise<ClusterGateway | null> {
  const settings = loadTapeStoreSettings(runtime.sources);
  const choice = parseTapeStoreChoice(settings.tape_store);
  if (choice?.kind !== "postgres") return null;
  const token = loadTelegramSettings(runtime.sources).token.trim();
  const botId = token.split(":")[0] ?? "";
  const { ClusterGateway } = await import("../channels/cluster/cluster_gateway.ts");
  return new ClusterGateway(framework, {
    ...options,
    url: choice.url,
    workspace: framework.workspace,
    leaseSeconds: settings.cluster_lease_seconds,
    pollSeconds: settings.cluster_poll_seconds,
    holdIdleSeconds: settings.cluster_hold_idle_seconds,
    storeRetrySeconds: settings.tape_store_retry_seconds,
    electedPollers: token === "" ? {} : { telegram: `telegram-poller:${botId}` },
  });
}
