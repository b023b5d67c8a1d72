import { describe, expect, it } from 'vitest';
import {
  looksLikeIdentifier,
  referencedStem,
  semanticTypeOf,
  singular,
  tableNamedBy,
} from '../src/discovery/semantics.ts';

const of = (
  name: string,
  type: string,
  facts: { distinct?: number; rows?: number; analyzed?: boolean } = {},
) => semanticTypeOf({ name, type, native_type: type, ...facts });

describe('semantic types from names, types and counts', () => {
  it('reads types first: booleans, places, instants', () => {
    expect(of('active', 'boolean')).toBe('boolean');
    expect(of('location', 'geo_point')).toBe('geo');
    expect(of('shipped_on', 'date')).toBe('datetime');
    expect(of('@timestamp', 'date')).toBe('datetime');
    expect(of('client.ip', 'ip')).toBe('identifier');
  });

  it('tells money from quantities and shares among numbers', () => {
    expect(of('total_amount', 'numeric')).toBe('money');
    expect(of('unitPrice', 'double')).toBe('money');
    expect(of('discount_pct', 'numeric')).toBe('quantity');
    expect(of('bytes', 'long')).toBe('quantity');
    expect(of('response_time_ms', 'long')).toBe('quantity');
    expect(of('line_no', 'integer')).toBe('other');
  });

  it('an integer with a handful of values among many rows is a code; with many, a quantity', () => {
    expect(of('http_status', 'integer', { distinct: 6, rows: 1000 })).toBe('category');
    expect(of('score', 'integer', { distinct: 6, rows: 1000 })).toBe('quantity');
    expect(of('visits_total', 'integer', { distinct: 900, rows: 1000 })).toBe('quantity');
  });

  it('the last word of a name says what it holds', () => {
    expect(of('line_total', 'numeric')).toBe('money');
    expect(of('share_price', 'numeric')).toBe('money');
    expect(of('order_count', 'integer')).toBe('quantity');
    expect(of('account_number', 'integer')).toBe('identifier');
    expect(of('billing_zip', 'integer')).toBe('geo');
    expect(of('fiscal_year', 'integer')).toBe('datetime');
    expect(of('content_type', 'text')).toBe('category');
    expect(of('review_status', 'text')).toBe('category');
    expect(of('order_state', 'keyword')).toBe('category');
  });

  it('names columns that identify rows', () => {
    expect(of('id', 'integer')).toBe('identifier');
    expect(of('customer_id', 'bigint')).toBe('identifier');
    expect(of('orderId', 'keyword')).toBe('identifier');
    expect(of('sku', 'text')).toBe('identifier');
    expect(looksLikeIdentifier('paid')).toBe(false);
    expect(looksLikeIdentifier('valid')).toBe(false);
  });

  it('text: contact details, places, names, prose, categories and one-per-row values', () => {
    expect(of('email', 'text')).toBe('other');
    expect(of('contact.phone', 'keyword')).toBe('other');
    expect(of('shipping_country', 'text')).toBe('geo');
    expect(of('full_name', 'text')).toBe('name');
    expect(of('product_name', 'varchar')).toBe('name');
    expect(of('comment', 'text')).toBe('free_text');
    expect(of('message', 'text', { analyzed: true })).toBe('free_text');
    expect(of('status', 'keyword')).toBe('category');
    expect(of('coupon_code', 'text', { distinct: 5, rows: 4000 })).toBe('category');
    expect(of('tracking', 'text', { distinct: 3990, rows: 4000 })).toBe('other');
    expect(of('is_gift', 'text')).toBe('boolean');
  });
});

describe('relationships by name', () => {
  it('finds the table a column names', () => {
    expect(referencedStem('customer_id')).toEqual(['customer']);
    expect(referencedStem('billingAccountId')).toEqual(['billing', 'account']);
    expect(referencedStem('id')).toEqual([]);
    expect(referencedStem('customer_name')).toEqual([]);
    expect(singular('categories')).toBe('category');
    expect(singular('addresses')).toBe('address');
    expect(singular('status')).toBe('status');
    expect(singular('statuses')).toBe('status');
    expect(singular('purchases')).toBe('purchase');
    expect(singular('warehouses')).toBe('warehouse');
    expect(singular('courses')).toBe('course');
    expect(tableNamedBy('customers', ['customer'])).toBe(true);
    expect(tableNamedBy('billing_accounts', ['billing', 'account'])).toBe(true);
    expect(tableNamedBy('crm_accounts', ['account'])).toBe(true);
    expect(tableNamedBy('accounting', ['account'])).toBe(false);
  });
});

describe('personal columns are never sampled', () => {
  it('finds a personal word wherever it stands in the name', async () => {
    const { personal } = await import('../src/runs/samples.ts');
    for (const name of [
      'phone_number',
      'customerEmail',
      'date_of_birth',
      'api_key',
      'billing-street',
      'user.password',
    ])
      expect(personal(name), name).toBe(true);
    for (const name of ['product_name', 'status', 'mail_order', 'country'])
      expect(personal(name), name).toBe(false);
  });
});
