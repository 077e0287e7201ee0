import { describe, expect, it } from 'vitest';
import { createEventBus } from '../../src/events/event-bus.ts';

describe('the in-process event bus', () => {
  it('takes any number of subscribers of one workspace without a MaxListenersExceededWarning (Node warns past 10)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const bus = createEventBus();
    const received: number[] = [];
    const stops = await Promise.all(Array.from({ length: 25 }, (_, i) => bus.listen('wsp_many', () => received.push(i))));
    bus.publish({ workspaceId: 'wsp_many' } as never);
    await new Promise((r) => setTimeout(r, 20));
    for (const stop of stops) stop();
    process.off('warning', onWarning);
    await bus.close();
    expect(received.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(warnings).toEqual([]);
  });
});
