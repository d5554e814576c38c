import { useCallback, useEffect, useRef, useState } from "react";
import { isAbort } from "./api";

export interface Resource<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  /** Loads again, keeping what is shown until the answer arrives. */
  reload(): void;
  /** Replaces what is shown, e.g. with the object a change returned. */
  setData(update: (current: T | undefined) => T | undefined): void;
}

interface State<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
}

/**
 * Loads data with `load` and again whenever `load` changes (wrap it in useCallback with what it
 * depends on, such as the environment). Answers to superseded requests are dropped.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>): Resource<T> {
  const [state, setState] = useState<State<T>>({ data: undefined, error: undefined, loading: true });
  const [version, setVersion] = useState(0);
  const previousLoad = useRef(load);

  useEffect(() => {
    // `version` is read so that reload() runs this effect again.
    void version;
    const controller = new AbortController();
    const sourceChanged = previousLoad.current !== load;
    previousLoad.current = load;
    // Data of another environment or filter must not linger while the new one loads.
    setState((current) =>
      sourceChanged ? { data: undefined, error: undefined, loading: true } : { ...current, loading: true },
    );
    load(controller.signal).then(
      (data) => setState({ data, error: undefined, loading: false }),
      (error: unknown) => {
        if (isAbort(error)) return;
        const asError = error instanceof Error ? error : new Error(String(error));
        setState((current) => ({ data: current.data, error: asError, loading: false }));
      },
    );
    return () => controller.abort();
  }, [load, version]);

  const reload = useCallback(() => setVersion((n) => n + 1), []);
  const setData = useCallback(
    (update: (current: T | undefined) => T | undefined) =>
      setState((current) => ({ ...current, data: update(current.data) })),
    [],
  );

  return { ...state, reload, setData };
}
