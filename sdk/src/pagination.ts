export interface Page<Item> {
  data: Item[];
  has_more: boolean;
}

/**
 * Every item of a cursor-paged list, fetched a page at a time as the loop asks for more:
 * `for await (const item of list)`. `pages()` walks the same list page by page.
 */
export class AutoPaginatedList<Item> implements AsyncIterable<Item> {
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page<Item>>,
    /** The cursor that continues after an item: its id. */
    private readonly cursorAfter: (item: Item) => string,
    private readonly firstCursor: string | undefined,
  ) {}

  async *pages(): AsyncGenerator<Page<Item>, void, undefined> {
    let cursor = this.firstCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      const last = page.data.at(-1);
      if (!page.has_more || last === undefined) return;
      cursor = this.cursorAfter(last);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** All the items in an array, at most `limit` of them (stops fetching once it has them). */
  async toArray(limit = Number.POSITIVE_INFINITY): Promise<Item[]> {
    const items: Item[] = [];
    if (items.length >= limit) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }
}
