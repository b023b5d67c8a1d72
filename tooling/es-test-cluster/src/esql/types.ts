import type { Location } from '@aqs/esql';
import type { EsqlType, Value } from '../values.ts';
import type { Span } from './dates.ts';

export interface Column {
  name: string;
  type: EsqlType;
}

/** Rows are arrays aligned with `columns`. */
export interface Table {
  columns: Column[];
  rows: Value[][];
}

/** A compiled expression: its ES|QL type, an evaluator over a row, and its source text. */
export interface Compiled {
  type: EsqlType;
  fn: (row: Value[]) => Value;
  /** True when the value does not depend on the row. */
  constant: boolean;
  /** Set for timespan literals (`1 day`). */
  span?: Span;
  text: string;
  loc: Location;
}

/** Collects the `Warning` headers Elasticsearch sends when evaluation fails on some rows. */
export class Warnings {
  private readonly byExpr = new Map<string, string[]>();
  readonly order: string[] = [];

  add(loc: Location, exprText: string, detail: string): void {
    const key = `${loc.line}:${loc.column}:${exprText}`;
    let list = this.byExpr.get(key);
    if (!list) {
      list = [];
      this.byExpr.set(key, list);
      this.order.push(key);
      this.headerFor.set(
        key,
        `Line ${loc.line}:${loc.column}: evaluation of [${exprText}] failed, treating result as null. Only first 20 failures recorded.`,
      );
      this.locFor.set(key, `Line ${loc.line}:${loc.column}`);
    }
    if (list.length < 20) list.push(detail);
  }

  private readonly headerFor = new Map<string, string>();
  private readonly locFor = new Map<string, string>();
  readonly plain: string[] = [];

  /** A warning that is not about a failed evaluation (e.g. the default limit). */
  addPlain(text: string): void {
    if (!this.plain.includes(text)) this.plain.push(text);
  }

  /** Warning texts in the order ES sends them. */
  all(): string[] {
    const out: string[] = [...this.plain];
    for (const key of this.order) {
      out.push(this.headerFor.get(key) ?? '');
      for (const d of [...new Set(this.byExpr.get(key) ?? [])])
        out.push(`${this.locFor.get(key) ?? ''}: ${d}`);
    }
    return out;
  }
}

export const MV_WARNING = 'java.lang.IllegalArgumentException: single-value function encountered multi-value';
