import { useSearchParams } from "react-router";

/**
 * A page's filters as they stand in the address: the parameters, one filter's setter (an empty
 * value removes it) and a way to clear them all, each replacing the history entry. A filter is
 * set from the current parameters, not this render's, so two changes before a render keep both.
 */
export function useFilterParams<Name extends string>(): {
  params: URLSearchParams;
  setFilter(name: Name, value: string): void;
  clearFilters(): void;
} {
  const [params, setParams] = useSearchParams();
  return {
    params,
    setFilter: (name, value) =>
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (value) next.set(name, value);
          else next.delete(name);
          return next;
        },
        { replace: true },
      ),
    clearFilters: () => setParams({}, { replace: true }),
  };
}
