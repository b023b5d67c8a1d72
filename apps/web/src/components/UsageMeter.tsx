import { useId, type ReactNode } from 'react';

/** How full an allowance is: `ok` below 80 %, `warning` from 80 %, `danger` when used up. */
export function usageTone(used: number, limit: number): 'ok' | 'warning' | 'danger' {
  if (limit <= 0) return used > 0 ? 'danger' : 'ok';
  const ratio = used / limit;
  return ratio >= 1 ? 'danger' : ratio >= 0.8 ? 'warning' : 'ok';
}

/**
 * One allowance as a bar (a native <progress>: role progressbar with its value and maximum) named
 * by its sentence, e.g. “143 of 200 questions this month”.
 */
export function UsageMeter({
  title,
  used,
  limit,
  text,
  note,
}: {
  title: string;
  used: number;
  limit: number;
  text: string;
  note?: ReactNode;
}) {
  const id = useId();
  const max = Math.max(limit, 1);
  const tone = usageTone(used, limit);
  return (
    <div className={`meter meter-${tone}`}>
      <div className="meter-head">
        <span className="meter-title">{title}</span>
        <span className="meter-text" id={`${id}-text`}>
          {text}
        </span>
      </div>
      <progress aria-labelledby={`${id}-text`} max={max} value={Math.min(Math.max(used, 0), max)} />
      {note ? <p className="muted small">{note}</p> : null}
    </div>
  );
}

/** The seats of a workspace: members and pending invites (each holds one) against those allowed. */
export function SeatsMeter({
  title,
  seats,
  note,
}: {
  title: string;
  seats: { used: number; pending: number; allowed: number };
  note?: ReactNode;
}) {
  const taken = seats.used + seats.pending;
  return (
    <UsageMeter
      title={title}
      used={taken}
      limit={seats.allowed}
      text={`${taken.toLocaleString()} of ${seats.allowed.toLocaleString()} seats taken`}
      note={note}
    />
  );
}
