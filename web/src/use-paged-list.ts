import { useCallback, useEffect, useState } from "react";
import { type Resource, useResource } from "./use-resource";

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

export interface PagedList<T> {
  /** The first page, as `useResource` loads it (its error, loading state, reload). */
  firstPage: Resource<Page<T>>;
  /** Every item loaded so far, the first page's and those "Load more" added. */
  items: T[];
  hasMore: boolean;
  loadMore(): Promise<void>;
  loadingMore: boolean;
  moreError: Error | undefined;
  /** Replaces items in whichever loaded page holds them. */
  update(change: (item: T) => T): void;
}

/**
 * A list read newest first, page by page: `loadPage(after)` reads the page after the item `after`
 * (the first page without it). Pages added with "Load more" belong to the `loadPage` they were
 * loaded with, so a new filter (a new `loadPage`) starts from its first page again.
 */
export function usePagedList<T>(
  loadPage: (after: T | undefined, signal?: AbortSignal) => Promise<Page<T>>,
): PagedList<T> {
  const first = useCallback((signal: AbortSignal) => loadPage(undefined, signal), [loadPage]);
  const firstPage = useResource(first);
  const [more, setMore] = useState<{ items: T[]; hasMore: boolean } | undefined>();
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<Error | undefined>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: resets whenever the first page's source changes
  useEffect(() => {
    setMore(undefined);
    setMoreError(undefined);
  }, [first]);

  const items = [...(firstPage.data?.data ?? []), ...(more?.items ?? [])];
  const hasMore = more ? more.hasMore : (firstPage.data?.has_more ?? false);

  const loadMore = async () => {
    const last = items.at(-1);
    if (last === undefined) return;
    setLoadingMore(true);
    setMoreError(undefined);
    try {
      const page = await loadPage(last);
      setMore((current) => ({ items: [...(current?.items ?? []), ...page.data], hasMore: page.has_more }));
    } catch (caught) {
      setMoreError(caught instanceof Error ? caught : new Error(String(caught)));
    } finally {
      setLoadingMore(false);
    }
  };

  const update = (change: (item: T) => T) => {
    firstPage.setData((page) => page && { ...page, data: page.data.map(change) });
    setMore((pages) => pages && { ...pages, items: pages.items.map(change) });
  };

  return { firstPage, items, hasMore, loadMore, loadingMore, moreError, update };
}
