/** Whether a page follows its event stream (`live`), or what it does meanwhile (`offline`: connecting, polling). */
export function LiveIndicator({ live, offline }: { live: boolean; offline: string }) {
  return (
    <span class={`live ${live ? 'on' : 'off'}`} data-testid="live-indicator" data-live={String(live)}>
      {live ? 'live' : offline}
    </span>
  );
}
