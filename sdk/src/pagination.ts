export interface Page<Item> {
  data: Item[];
  has_more: boolean;
}

/**
 * Every item of a cursor-paged list, fetched a page at a time as the loop asks for more:
 * `for await (const item of list)`. `pages()` walks the same list page by page. Awaited, the
 * list is its first page, `{ data, has_more }`, as the API's route answers it.
 */
export class AutoPaginatedList<Item> implements AsyncIterable<Item>, PromiseLike<Page<Item>> {
  #firstPage: Promise<Page<Item>> | undefined;

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page<Item>>,
    /** The cursor that continues after an item: its id. */
    private readonly cursorAfter: (item: Item) => string,
    private readonly firstCursor: string | undefined,
  ) {}

  // biome-ignore lint/suspicious/noThenProperty: awaiting a list answers its first page, the shape its REST route answers
  then<Fulfilled = Page<Item>, Rejected = never>(
    onfulfilled?: ((page: Page<Item>) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onrejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    this.#firstPage ??= this.fetchPage(this.firstCursor);
    return this.#firstPage.then(onfulfilled, onrejected);
  }

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
