import { INSTANT, int, jsonObject, obj, oneOfStrings, page, POSITION, str } from './schema.js';

/** SU-1 answers (api.md, Executions). */
export const subscriptionRegistered = obj(
  { subscriptionId: str(), state: oneOfStrings(['active']), deadline: INSTANT, position: POSITION },
  ['subscriptionId', 'state', 'position'],
);

export const subscriptionPage = page(
  obj(
    {
      subscriptionId: str(),
      state: oneOfStrings(['active', 'matched', 'timed_out']),
      target: obj({ triggerId: str(), sourceId: str() }, []),
      match: jsonObject('as registered'),
      deadline: INSTANT,
      registeredAt: INSTANT,
      matchedOccurrenceId: str(),
      resolvedAt: INSTANT,
      position: int(0, undefined, { description: "the registration's store position" }),
    },
    ['subscriptionId', 'state', 'deadline'],
  ),
);
