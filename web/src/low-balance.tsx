import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { useLocation } from "react-router";
import { api, isAbort, type LowBalance } from "./api";
import { useEnvironment } from "./environment";

interface LowBalanceContextValue {
  /** The current environment's balance and alert; undefined until read (or if it could not be). */
  alert: LowBalance | undefined;
  /** Why it could not be read, if it could not. */
  error: Error | undefined;
  /** Shows what a change answered (a new threshold, a top-up's balance) at once. */
  show(view: LowBalance): void;
  /** Reads it again, e.g. after credits were added. */
  reload(): void;
}

const LowBalanceContext = createContext<LowBalanceContextValue | undefined>(undefined);

/**
 * The current environment's low-balance alert for the whole console (the banner, the Transactions
 * page): one small read when the environment changes and on each page opened, so a balance that
 * sends took below its threshold shows up on the next page.
 */
export function LowBalanceProvider({ children }: { children: ReactNode }) {
  const { environment } = useEnvironment();
  const { pathname } = useLocation();
  const [alert, setAlert] = useState<LowBalance | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [version, setVersion] = useState(0);

  useEffect(() => {
    // Read on every page opened and every reload() on purpose.
    void pathname;
    void version;
    const controller = new AbortController();
    api.billing(environment, controller.signal).then(
      (view) => {
        setAlert(view);
        setError(undefined);
      },
      (caught: unknown) => {
        // The banner is a reminder: when it cannot be read, the page shows without it.
        if (isAbort(caught)) return;
        setAlert(undefined);
        setError(caught instanceof Error ? caught : new Error(String(caught)));
      },
    );
    return () => controller.abort();
  }, [environment, pathname, version]);

  const reload = useCallback(() => setVersion((n) => n + 1), []);
  const value = useMemo(
    () => ({
      // Another environment's answer never shows while this one's loads.
      alert: alert?.environment === environment ? alert : undefined,
      error,
      show: setAlert,
      reload,
    }),
    [alert, error, environment, reload],
  );
  return <LowBalanceContext.Provider value={value}>{children}</LowBalanceContext.Provider>;
}

export function useLowBalance(): LowBalanceContextValue {
  const value = useContext(LowBalanceContext);
  if (!value) throw new Error("useLowBalance must be used inside <LowBalanceProvider>");
  return value;
}
