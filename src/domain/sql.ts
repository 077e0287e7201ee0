/** Parameters of one statement ($1, $2, ...), for statements composed from fragments (CTEs written by several modules). */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a parameter and returns its placeholder (with `cast`, e.g. `::timestamptz`). */
  p(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}

/** A tiny builder for parameterised WHERE clauses ($1, $2, ...) used by the list queries. */
export class SqlWhere {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  /** Adds a parameter and returns its placeholder. */
  param(value: unknown, cast = ''): string {
    this.params.push(value);
    return `$${this.params.length}${cast}`;
  }

  /** Adds a condition; `fn` receives `param` to bind values. */
  and(condition: string | ((p: (value: unknown, cast?: string) => string) => string)): this {
    this.parts.push(typeof condition === 'string' ? condition : condition((v, c) => this.param(v, c)));
    return this;
  }

  toString(): string {
    return this.parts.length ? this.parts.map((p) => `(${p})`).join(' AND ') : 'TRUE';
  }
}

/** Escapes LIKE wildcards so a search term matches literally. */
export function likeContains(term: string): string {
  return '%' + term.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
}
