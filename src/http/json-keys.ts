// Keys named __proto__ in free-form JSON. JSON.parse makes them own properties,
// but Prisma's client writes JSON without them: kept, they would be lost unseen.

interface Step {
  value: unknown;
  key: string;
  parent: Step | undefined;
}

/**
 * The path (`metadata.a.__proto__`) of a `__proto__` key in `value`, found
 * without recursion, or undefined when it has none. `name` starts the path.
 */
export function protoKeyPath(value: unknown, name: string): string | undefined {
  const pending: Step[] = [{ value, key: name, parent: undefined }];
  while (pending.length > 0) {
    const step = pending.pop()!;
    if (typeof step.value !== 'object' || step.value === null) continue;
    for (const [key, child] of Object.entries(step.value)) {
      const next = { value: child, key, parent: step };
      if (key === '__proto__') return pathOf(next);
      pending.push(next);
    }
  }
  return undefined;
}

function pathOf(step: Step | undefined): string {
  const keys: string[] = [];
  for (; step; step = step.parent) keys.unshift(step.key);
  return keys.join('.');
}
