import type { ReactNode } from "react";

/** A content hash: its first 12 hex shown, the whole hash in the title and for copying. */
export function Hash(props: { readonly value: string | undefined }): ReactNode {
  if (props.value === undefined || props.value === "") return <span className="muted">none</span>;
  return (
    <code className="hash" title={props.value}>
      {props.value.slice(0, 12)}
    </code>
  );
}
