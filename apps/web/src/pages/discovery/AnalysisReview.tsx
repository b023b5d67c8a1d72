import { useState, type FormEvent } from 'react';
import type { DiscoveredTable, DiscoverySummary, Relationship, SemanticType } from '@aqs/contracts';
import { Badge, Button, ErrorNote, formatDate } from '../../components/ui.tsx';
import { curatedRelationships, curatedView, useCuration, type CuratedTable } from './curation.ts';

type Noun = { one: string; many: string };
/** Every semantic type with its label (a Record, so the compiler says when the contract adds one); no zod in the bundle. */
const LABELS: Record<SemanticType, string> = {
  money: 'money',
  quantity: 'quantity',
  datetime: 'date / time',
  identifier: 'identifier',
  category: 'category',
  name: 'name',
  geo: 'place',
  boolean: 'yes / no',
  free_text: 'free text',
  other: 'other',
};
const semanticTypes = Object.keys(LABELS) as SemanticType[];
const label = (type: SemanticType) => LABELS[type];
const linkKey = (r: Relationship) =>
  `${r.from_table}.${r.from_columns.join(',')}>${r.to_table}.${r.to_columns.join(',')}`;

/**
 * The last analysis as the planner uses it (curated values over found ones), to review and correct:
 * per table its description, key and what each column holds; the relationships, which can be removed
 * or added (a table's curated relationships replace what was found for it). Analyses never overwrite
 * what is saved here.
 */
export function AnalysisReview({
  connectionId,
  summary,
  noun,
}: {
  connectionId: string;
  summary: DiscoverySummary;
  noun: Noun;
}) {
  const curation = useCuration(connectionId);
  const relationships = curatedRelationships(summary.relationships, curation.overrides);
  return (
    <>
      <section className="card discovery-summary" aria-labelledby="analysis-heading">
        <h2 id="analysis-heading">Last analysis</h2>
        <p className="muted">
          {formatDate(summary.analyzed_at)} · {summary.table_count} {noun.many} · {summary.column_count}{' '}
          columns · {summary.primary_key_count} keys · {summary.relationship_count} relationships ·{' '}
          {summary.usage.engine_queries} read-only queries
          {summary.analyser === 'model'
            ? ` · described by the model (${summary.usage.prompt_tokens.toLocaleString()} prompt tokens)`
            : ''}
        </p>
        {summary.warnings.length > 0 ? (
          <ul className="warnings">
            {summary.warnings.map((w) => (
              <li key={w} className="small">
                {w}
              </li>
            ))}
          </ul>
        ) : null}
        <ErrorNote error={curation.settings.error} title="What you curated could not be read" />
        <Relationships
          relationships={relationships}
          tables={summary.tables}
          noun={noun}
          save={curation.saveRelationships}
        />
      </section>
      {summary.tables.map((t) => (
        <TableReview
          key={t.name}
          table={curatedView(t, curation.curated, curation.overrides)}
          saved={curation.curated.tables.find((c) => c.name === t.name) ?? null}
          save={curation.saveTable}
          ready={curation.settings.isSuccess}
        />
      ))}
    </>
  );
}

function Relationships({
  relationships,
  tables,
  noun,
  save,
}: {
  relationships: Relationship[];
  tables: DiscoveredTable[];
  noun: Noun;
  save: ReturnType<typeof useCuration>['saveRelationships'];
}) {
  const [adding, setAdding] = useState(false);
  const ofTable = (table: string) => relationships.filter((r) => r.from_table === table);
  return (
    <>
      <div className="row gap-sm wrap">
        <h3>Relationships</h3>
        <Button size="sm" variant="ghost" onClick={() => setAdding((v) => !v)} aria-expanded={adding}>
          Add a relationship
        </Button>
      </div>
      {adding ? (
        <AddRelationship
          tables={tables}
          onAdd={(link) => {
            if (ofTable(link.from_table).some((r) => linkKey(r) === linkKey(link))) return setAdding(false);
            save.mutate(
              { table: link.from_table, relationships: [...ofTable(link.from_table), link] },
              { onSuccess: () => setAdding(false) },
            );
          }}
          busy={save.isPending}
        />
      ) : null}
      <ErrorNote error={save.error} title="The relationships were not saved" />
      {relationships.length === 0 ? (
        <p className="muted">None found.</p>
      ) : (
        <table className="data-table compact">
          <caption className="visually-hidden">Relationships between {noun.many}</caption>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Found</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {relationships.map((r) => (
              <tr key={linkKey(r)}>
                <td>
                  <code>
                    {r.from_table}.{r.from_columns.join(', ')}
                  </code>
                  {r.name ? <div className="muted small">{r.name}</div> : null}
                </td>
                <td>
                  <code>
                    {r.to_table}.{r.to_columns.join(', ')}
                  </code>
                </td>
                <td>
                  <Badge
                    tone={r.source === 'inferred' ? 'info' : r.source === 'curated' ? 'success' : 'neutral'}
                  >
                    {r.source === 'inferred'
                      ? 'checked on the data'
                      : r.source === 'curated'
                        ? 'yours'
                        : r.source}
                  </Badge>
                </td>
                <td>
                  <Button
                    size="sm"
                    variant="ghost"
                    busy={save.isPending && save.variables?.table === r.from_table}
                    aria-label={`Remove the relationship ${r.from_table}.${r.from_columns.join(', ')} to ${r.to_table}`}
                    onClick={() =>
                      save.mutate({
                        table: r.from_table,
                        relationships: ofTable(r.from_table).filter((x) => linkKey(x) !== linkKey(r)),
                      })
                    }
                  >
                    Remove
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function AddRelationship({
  tables,
  onAdd,
  busy,
}: {
  tables: DiscoveredTable[];
  onAdd: (link: Relationship) => void;
  busy: boolean;
}) {
  const columns = tables.flatMap((t) => t.columns.map((c) => `${t.name}\u0000${c.name}`));
  const [from, setFrom] = useState(columns[0] ?? '');
  const [to, setTo] = useState(columns[1] ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const [fromTable, fromColumn] = from.split('\u0000');
    const [toTable, toColumn] = to.split('\u0000');
    if (!fromTable || !fromColumn || !toTable || !toColumn) return;
    onAdd({
      from_table: fromTable,
      from_columns: [fromColumn],
      to_table: toTable,
      to_columns: [toColumn],
      source: 'curated',
      name: null,
    });
  };
  return (
    <form className="row gap-sm wrap discovery-add-link" onSubmit={submit} aria-label="Add a relationship">
      <ColumnPicker label="From" value={from} columns={columns} onChange={setFrom} />
      <ColumnPicker label="to" value={to} columns={columns} onChange={setTo} />
      <Button type="submit" size="sm" variant="primary" busy={busy}>
        Add
      </Button>
    </form>
  );
}

/** A column of any table (`table\u0000column`), shown as `table.column`. */
function ColumnPicker({
  label: text,
  value,
  columns,
  onChange,
}: {
  label: string;
  value: string;
  columns: string[];
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {text}{' '}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {columns.map((c) => (
          <option key={c} value={c}>
            {c.replace('\u0000', '.')}
          </option>
        ))}
      </select>
    </label>
  );
}

function TableReview({
  table,
  saved,
  save,
  ready,
}: {
  table: ReturnType<typeof curatedView>;
  saved: CuratedTable | null;
  save: ReturnType<typeof useCuration>['saveTable'];
  ready: boolean;
}) {
  const [editing, setEditing] = useState(false);
  return (
    <details className="card discovery-table">
      <summary>
        <strong>{table.name}</strong>{' '}
        <span className="muted small">
          {table.row_count !== null ? `${table.row_count.toLocaleString()} rows · ` : ''}
          {table.primary_key ? `key ${table.primary_key.join(', ')} (${table.primary_key_source})` : 'no key'}
        </span>
      </summary>
      {table.description ? <p>{table.description}</p> : null}
      {editing ? (
        <TableEditor
          table={table}
          saved={saved}
          save={save}
          onDone={() => setEditing(false)}
          onCancel={() => {
            save.reset();
            setEditing(false);
          }}
        />
      ) : (
        <>
          <table className="data-table compact">
            <caption className="visually-hidden">Columns of {table.name}</caption>
            <thead>
              <tr>
                <th scope="col">Column</th>
                <th scope="col">Holds</th>
                <th scope="col">Description and values</th>
              </tr>
            </thead>
            <tbody>
              {table.columns.map((c) => (
                <tr key={c.name}>
                  <td>
                    <code>{c.name}</code>
                  </td>
                  <td>
                    {label(c.semantic_type)}
                    {table.curatedColumns.has(c.name) ? <span className="muted small"> (yours)</span> : null}
                  </td>
                  <td>
                    {c.description ? <span>{c.description} </span> : null}
                    {c.sample_values.length > 0 ? (
                      <span className="muted small">e.g. {c.sample_values.slice(0, 6).join(', ')}</span>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Button
            size="sm"
            onClick={() => setEditing(true)}
            disabled={!ready}
            aria-label={`Edit ${table.name}`}
          >
            Edit
          </Button>
        </>
      )}
    </details>
  );
}

/** One table's description, key, and each column's description and meaning: saved as curated values. */
function TableEditor({
  table,
  saved,
  save,
  onDone,
  onCancel,
}: {
  table: ReturnType<typeof curatedView>;
  saved: CuratedTable | null;
  save: ReturnType<typeof useCuration>['saveTable'];
  onDone: () => void;
  onCancel: () => void;
}) {
  const [description, setDescription] = useState(table.description ?? '');
  // A composite key cannot be chosen here: it stays as it is unless another key is picked.
  const [key, setKey] = useState(table.primary_key?.length === 1 ? table.primary_key[0]! : '');
  const [keyTouched, setKeyTouched] = useState(false);
  const [columns, setColumns] = useState(() =>
    table.columns.map((c) => {
      const own = saved?.columns?.find((x) => x.name === c.name);
      return {
        name: c.name,
        description: own?.description ?? c.description ?? '',
        semantic_type: c.semantic_type,
      };
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const merged = new Map(table.columns.map((c) => [c.name, c]));
    const own = new Map((saved?.columns ?? []).map((c) => [c.name, c]));
    // Only what the user says differently is curated (what was curated before stays curated).
    const tableDescription = description.trim() || null;
    const keyChanged = keyTouched && (table.primary_key?.join(',') ?? '') !== key;
    save.mutate(
      {
        table: {
          name: table.name,
          description:
            saved?.description != null || tableDescription !== (table.description ?? null)
              ? tableDescription
              : null,
          columns: columns
            .map((c) => {
              const before = merged.get(c.name);
              const mine = own.get(c.name);
              const text = c.description.trim() || null;
              return {
                name: c.name,
                description:
                  mine?.description != null || text !== (before?.description ?? null) ? text : null,
                semantic_type:
                  c.semantic_type !== before?.semantic_type ? c.semantic_type : (mine?.semantic_type ?? null),
              };
            })
            .filter((c) => c.description || c.semantic_type),
        },
        primaryKey: keyChanged ? (key ? [key] : null) : undefined,
      },
      { onSuccess: onDone },
    );
  };
  const update = (index: number, patch: Partial<(typeof columns)[number]>) =>
    setColumns((all) => all.map((c, i) => (i === index ? { ...c, ...patch } : c)));
  return (
    <form className="stack discovery-editor" onSubmit={submit} aria-label={`Edit ${table.name}`}>
      <label className="field">
        <span>Description</span>
        <textarea
          rows={2}
          maxLength={2000}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </label>
      <label className="field">
        <span>Key</span>
        <select
          value={key}
          onChange={(e) => {
            setKey(e.target.value);
            setKeyTouched(true);
          }}
        >
          <option value="">
            {table.primary_key && table.primary_key.length > 1
              ? `${table.primary_key.join(' + ')} (as it is)`
              : 'None'}
          </option>
          {table.columns.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
      <table className="data-table compact">
        <caption className="visually-hidden">Columns of {table.name}, to edit</caption>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">Holds</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {columns.map((c, i) => (
            <tr key={c.name}>
              <td>
                <code>{c.name}</code>
              </td>
              <td>
                <select
                  aria-label={`What ${c.name} holds`}
                  value={c.semantic_type}
                  onChange={(e) => update(i, { semantic_type: e.target.value as typeof c.semantic_type })}
                >
                  {semanticTypes.map((t) => (
                    <option key={t} value={t}>
                      {label(t)}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <input
                  type="text"
                  aria-label={`Description of ${c.name}`}
                  maxLength={2000}
                  value={c.description}
                  onChange={(e) => update(i, { description: e.target.value })}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorNote error={save.error} title="The changes were not saved" />
      <div className="row gap-sm">
        <Button type="submit" variant="primary" size="sm" busy={save.isPending}>
          Save
        </Button>
        <Button size="sm" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
