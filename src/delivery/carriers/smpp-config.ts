import { integerFromEnv } from "../../env.js";
import { ConfigError } from "../../errors.js";

export type BindMode = "transceiver" | "transmitter+receiver";

export interface SmppConfig {
  host: string;
  port: number;
  tls: boolean;
  systemId: string;
  password: string;
  systemType: string;
  bindMode: BindMode;
  /** Messages (parts) per second at most. */
  tps: number;
  /** `submit_sm` awaiting their response at most. */
  window: number;
  /** DLT TLV tags; sources disagree on them, so they are settings. */
  tlv: { entityId: number; templateId: number; tm: number };
  /** Telemarketer id or PE–TM chain hash, sent in `tlv.tm` when set. */
  tmId: string | undefined;
  /** Alphanumeric headers are TON 5 / NPI 0; Indian mobiles TON 1 / NPI 1, without the plus. */
  source: { ton: number; npi: number };
  destination: { ton: number; npi: number };
}

/** Reads the SMPP_* variables; `undefined` when SMPP_URL is unset (live SMS not configured). */
export function parseSmppConfig(env: NodeJS.ProcessEnv): SmppConfig | undefined {
  const raw = env.SMPP_URL;
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError("SMPP_URL must look like smpp://system_id:password@host:2775 (smpps:// for TLS)");
  }
  if (url.protocol !== "smpp:" && url.protocol !== "smpps:") {
    throw new ConfigError("SMPP_URL must start with smpp:// or smpps://");
  }
  if (!url.username || !url.hostname) throw new ConfigError("SMPP_URL needs a system_id and a host");
  const tls = url.protocol === "smpps:";
  const bindMode = env.SMPP_BIND || "transceiver";
  if (bindMode !== "transceiver" && bindMode !== "transmitter+receiver") {
    throw new ConfigError(`SMPP_BIND must be transceiver or transmitter+receiver, got "${bindMode}"`);
  }
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : tls ? 3550 : 2775,
    tls,
    systemId: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    systemType: env.SMPP_SYSTEM_TYPE ?? "",
    bindMode,
    tps: integerFromEnv(env, "SMPP_TPS", 50, 1, 10_000),
    window: integerFromEnv(env, "SMPP_WINDOW", 10, 1, 1_000),
    tlv: {
      entityId: integerFromEnv(env, "SMPP_TLV_ENTITY_ID", 0x1400, 0x1400, 0x3fff),
      templateId: integerFromEnv(env, "SMPP_TLV_TEMPLATE_ID", 0x1401, 0x1400, 0x3fff),
      tm: integerFromEnv(env, "SMPP_TLV_TM", 0x1402, 0x1400, 0x3fff),
    },
    tmId: env.SMPP_TM_ID || undefined,
    source: {
      ton: integerFromEnv(env, "SMPP_SOURCE_TON", 5, 0, 6),
      npi: integerFromEnv(env, "SMPP_SOURCE_NPI", 0, 0, 18),
    },
    destination: {
      ton: integerFromEnv(env, "SMPP_DEST_TON", 1, 0, 6),
      npi: integerFromEnv(env, "SMPP_DEST_NPI", 1, 0, 18),
    },
  };
}
