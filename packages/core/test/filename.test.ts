import { describe, expect, it } from 'vitest';
import { contentDisposition, downloadFilename } from '../src/artifacts/filename.ts';

function codePoints(text: string): number {
  return [...text].length;
}

/** The two names a Content-Disposition value carries, decoded. */
function namesIn(header: string): { ascii: string; utf8: string } {
  const match = /^attachment; filename="([^"]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+\-.^_`|~%]*)$/.exec(
    header,
  );
  if (!match) throw new Error(`not the expected shape: ${header}`);
  return { ascii: match[1] as string, utf8: decodeURIComponent(match[2] as string) };
}

describe('downloadFilename', () => {
  it('makes a readable slug of the question', () => {
    expect(downloadFilename('Top 10 customers by revenue in 2024?', 'csv')).toBe(
      'top-10-customers-by-revenue-in-2024.csv',
    );
    expect(downloadFilename('  "Sales" / region -- (EMEA) & APAC!!  ', 'png')).toBe(
      'sales-region-emea-apac.png',
    );
    expect(downloadFilename("What's the avg. order_value?", 'json')).toBe('what-s-the-avg-order-value.json');
  });

  it('keeps letters and digits of any script, in NFKC and lower case', () => {
    expect(downloadFilename('Umsätze nach Größe', 'csv')).toBe('umsätze-nach-größe.csv');
    expect(downloadFilename('Cafe\u0301 ＡＢＣ １２３', 'svg')).toBe('café-abc-123.svg');
    expect(downloadFilename('每月的销售额是多少？', 'csv')).toBe('每月的销售额是多少.csv');
    expect(downloadFilename('ما هي المبيعات؟', 'csv')).toBe('ما-هي-المبيعات.csv');
    expect(downloadFilename('हिन्दी में बिक्री', 'csv')).toBe('हिन्दी-में-बिक्री.csv');
    expect(downloadFilename('Sales 📈 by 🌍 region', 'csv')).toBe('sales-by-region.csv');
  });

  it('caps the slug at 80 code points, cut between words', () => {
    const question =
      'how many orders were shipped late to customers in each region during every quarter of last year';
    const name = downloadFilename(question, 'csv');
    const slug = name.slice(0, -'.csv'.length);
    expect(codePoints(slug)).toBeLessThanOrEqual(80);
    expect(codePoints(slug)).toBeGreaterThan(70);
    expect(question.toLowerCase().split(' ').join('-').startsWith(`${slug}-`)).toBe(true);
    // U+20000 is one code point and two UTF-16 units: 20 words of 3 make a slug of 79 code points.
    const astral = Array.from({ length: 20 }, () => '\u{20000}'.repeat(3));
    expect(downloadFilename(astral.join(' '), 'csv')).toBe(`${astral.join('-')}.csv`);
  });

  it('cuts a single overlong word without splitting a character', () => {
    expect(downloadFilename('a'.repeat(200), 'csv')).toBe(`${'a'.repeat(80)}.csv`);
    const slug = downloadFilename('😀'.repeat(10) + '東'.repeat(200), 'csv').slice(0, -4);
    expect(slug).toBe('東'.repeat(80));
    // 1 + 4n code points: a cut at exactly 80 would part the last ष from its vowel sign ि.
    const devanagari = downloadFilename(`क${'क्षि'.repeat(30)}`, 'csv').slice(0, -4);
    expect(codePoints(devanagari)).toBeLessThanOrEqual(80);
    expect(devanagari.endsWith('ि')).toBe(true);
  });

  it('falls back to "answer" when nothing is left', () => {
    expect(downloadFilename('', 'csv')).toBe('answer.csv');
    expect(downloadFilename('   ?!  -- ', 'png')).toBe('answer.png');
    expect(downloadFilename('📈📉', 'svg')).toBe('answer.svg');
  });
});

describe('contentDisposition', () => {
  it('carries an ASCII name and the exact UTF-8 name', () => {
    expect(contentDisposition('sales-by-region.csv')).toBe(
      `attachment; filename="sales-by-region.csv"; filename*=UTF-8''sales-by-region.csv`,
    );
    expect(namesIn(contentDisposition('umsätze-nach-größe.csv'))).toEqual({
      ascii: 'umsatze-nach-gro_e.csv',
      utf8: 'umsätze-nach-größe.csv',
    });
    expect(namesIn(contentDisposition('每月的销售额.csv'))).toEqual({
      ascii: '______.csv',
      utf8: '每月的销售额.csv',
    });
    expect(namesIn(contentDisposition('😀.png')).ascii).toBe('_.png');
    // Some browsers percent-decode the plain filename parameter.
    expect(namesIn(contentDisposition('100%41.csv')).ascii).toBe('100_41.csv');
  });

  it('round-trips any name through decodeURIComponent, with only RFC 5987 attr-chars', () => {
    for (const name of [
      'ما-هي-المبيعات.csv',
      'हिन्दी-में-बिक्री.csv',
      "it's (really) *big* 100% #1 & more, ok?.json",
      'e\u0301\u200D👩‍👩‍👧.svg',
      'a b+c=d~e^f`g|h$i!j.csv',
    ]) {
      expect(namesIn(contentDisposition(name)).utf8).toBe(name);
    }
  });

  it('cannot be broken out of by quotes, backslashes, semicolons or CRLF', () => {
    const hostile = 'x"; filename="evil.exe\\"; a\r\nSet-Cookie: s=1;\n.csv';
    const header = contentDisposition(hostile);
    expect(header).toMatch(/^[\x20-\x7E]*$/);
    const { ascii, utf8 } = namesIn(header);
    expect(ascii).not.toMatch(/["\\;\r\n]/);
    expect(ascii).toBe('x__ filename=_evil.exe___ a__Set-Cookie: s=1__.csv');
    expect(utf8).toBe('x"; filename="evil.exe\\"; a__Set-Cookie: s=1;_.csv');
  });

  it('stays printable ASCII for control characters and lone surrogates', () => {
    const header = contentDisposition('a\u0000b\u0085c\uD800d.csv');
    expect(header).toMatch(/^[\x20-\x7E]*$/);
    expect(namesIn(header)).toEqual({ ascii: 'a_b_c_d.csv', utf8: 'a_b_c\uFFFDd.csv' });
  });
});
