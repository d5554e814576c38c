import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import type { Environment } from "./api";

const STORAGE_KEY = "dakiya.environment";

interface EnvironmentContextValue {
  environment: Environment;
  setEnvironment(environment: Environment): void;
}

const EnvironmentContext = createContext<EnvironmentContextValue | undefined>(undefined);

function readStoredEnvironment(): Environment {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === "sandbox" ? "sandbox" : "live";
  } catch {
    return "live";
  }
}

export function EnvironmentProvider({ children }: { children: ReactNode }) {
  const [environment, setState] = useState<Environment>(readStoredEnvironment);

  const setEnvironment = useCallback((next: Environment) => {
    setState(next);
    try {
      window.localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // Private browsing may refuse storage; the choice then lasts for this visit only.
    }
  }, []);

  const value = useMemo(() => ({ environment, setEnvironment }), [environment, setEnvironment]);
  return <EnvironmentContext.Provider value={value}>{children}</EnvironmentContext.Provider>;
}

export function useEnvironment(): EnvironmentContextValue {
  const value = useContext(EnvironmentContext);
  if (!value) throw new Error("useEnvironment must be used inside <EnvironmentProvider>");
  return value;
}
