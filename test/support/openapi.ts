/** Helpers that read an OpenAPI 3.0 document and the README as data, for the documentation suite. */

export interface Route {
  method: string;
  path: string;
}

/** Fastify's `printRoutes({ commonPrefix: false })` tree back into full paths, `:id` as OpenAPI's `{id}`. */
export function routesOf(tree: string): Route[] {
  const prefixes: string[] = [];
  const routes: Route[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? [])
      routes.push({ method, path: path.replace(/:([A-Za-z0-9_]+)/g, '{$1}') });
  }
  return routes;
}

/** OpenAPI 3.0's `nullable` as JSON Schema, so a JSON Schema validator reads the document as the spec means it. */
export function asJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, asJsonSchema(value)]));
  return nullable === true ? { anyOf: [converted, { type: 'null' }] } : converted;
}

export interface CurlExample {
  method: string;
  path: string;
  body: unknown;
  text: string;
}

/** Every `curl … -d '<json>' …/v1/…` in the README's code blocks (continued lines joined). */
export function curlExamples(markdown: string): CurlExample[] {
  const blocks = [...markdown.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n/g, ' '));
  const examples: CurlExample[] = [];
  for (const block of blocks) {
    for (const command of block.split(/\n(?=\s*curl )/)) {
      const text = command.trim();
      if (!text.startsWith('curl ')) continue;
      const url = /https?:\/\/[^/\s'"]+(\/v1\/[^\s'"?]+)/.exec(text);
      const data = /(?:-d|--data(?:-raw)?) '([^']*)'/.exec(text);
      if (!url || !data) continue;
      const method = /-X\s+([A-Z]+)/.exec(text)?.[1] ?? 'POST';
      examples.push({ method, path: url[1]!, body: JSON.parse(data[1]!), text });
    }
  }
  return examples;
}

/** The documented template a concrete path matches (`/v1/missions/m-1` → `/v1/missions/{missionId}`). */
export function templateOf(templates: string[], path: string): string | undefined {
  return templates.find((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
}
