import { createRequire } from 'node:module';
import type winkNLP from 'wink-nlp';

/**
 * Parts of speech and dictionary lemmas from wink-nlp's English model (`got` -> get, `came` -> come,
 * `filed` -> file, `n't` -> not). The offline parser uses them to tell content words (nouns, verbs)
 * from filler (interjections, adverbs, determiners) and to meet verbs with the date columns they name.
 * About 50 µs per question. The model is loaded by the first question, not at start.
 */
let loaded: ReturnType<typeof winkNLP> | undefined;
function nlp(): ReturnType<typeof winkNLP> {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const load = require('wink-nlp') as typeof winkNLP;
    loaded = load(require('wink-eng-lite-web-model') as Parameters<typeof winkNLP>[0], ['pos']);
  }
  return loaded;
}

export type PartOfSpeech =
  | 'ADJ'
  | 'ADP'
  | 'ADV'
  | 'AUX'
  | 'CCONJ'
  | 'DET'
  | 'INTJ'
  | 'NOUN'
  | 'NUM'
  | 'PART'
  | 'PRON'
  | 'PROPN'
  | 'PUNCT'
  | 'SCONJ'
  | 'SYM'
  | 'VERB'
  | 'X'
  | 'SPACE';

export interface WordAnalysis {
  start: number;
  end: number;
  lemma: string;
  pos: PartOfSpeech;
}

/** Every word of `text` with its character span, dictionary lemma and part of speech. */
export function analyse(text: string): WordAnalysis[] {
  const { its } = nlp();
  const doc = nlp().readDoc(text);
  const values = doc.tokens().out(its.value) as string[];
  const lemmas = doc
    .tokens()
    .out(its.lemma as Parameters<ReturnType<typeof doc.tokens>['out']>[0]) as string[];
  const tags = doc.tokens().out(its.pos) as string[];
  const out: WordAnalysis[] = [];
  let cursor = 0;
  values.forEach((value, i) => {
    const start = text.indexOf(value, cursor);
    if (start < 0) return;
    cursor = start + value.length;
    out.push({
      start,
      end: cursor,
      lemma: (lemmas[i] ?? value).toLowerCase(),
      pos: (tags[i] ?? 'X') as PartOfSpeech,
    });
  });
  return out;
}

/** The analysis of the word starting at `start` (tokenizers may split differently: the covering word otherwise). */
export function wordAt(words: readonly WordAnalysis[], start: number): WordAnalysis | undefined {
  return words.find((w) => w.start === start) ?? words.find((w) => w.start <= start && start < w.end);
}

/** Words that carry content: an unknown one means the question asks about something not understood. */
export function isContentTag(pos: PartOfSpeech | undefined): boolean {
  return pos === 'NOUN' || pos === 'PROPN' || pos === 'NUM' || pos === 'X' || pos === undefined;
}
