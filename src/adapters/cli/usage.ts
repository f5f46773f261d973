/** One entry per command: its `--help`, and the options it takes (anything else is a usage error). */
export interface CommandUsage {
  name: string;
  summary: string;
  usage: string;
  options: readonly string[];
  /** Words after the command's name are its arguments (`why <occurrenceId>`), not an unknown command. */
  takesArguments?: boolean;
  /** Long-form help shown by `reveille <command> --help`. */
  details: string;
}

export const COMMANDS: readonly CommandUsage[] = [
  {
    name: 'serve',
    summary: 'run the HTTP service',
    usage: 'reveille serve',
    options: [],
    details: `Runs the HTTP API and, unless REVEILLE_BACKGROUND=off, admission, read models and schedules.
Configured by environment variables only (see the README's Configuration table); PORT and HOST say
where it listens. On the embedded store it holds REVEILLE_DATA_DIR: no other reveille process may
open that directory while it runs.`,
  },
  {
    name: 'migrate',
    summary: 'apply database migrations',
    usage: 'reveille migrate',
    options: [],
    details: `Applies the schema migrations to DATABASE_URL (or the embedded store in REVEILLE_DATA_DIR) and exits.
On the embedded store it refuses while a server holds the data directory.`,
  },
  {
    name: 'token',
    summary: 'mint a development token',
    usage: 'reveille token --tenant T [--scope "S …"] [--ttl SECONDS] [--subject S]',
    options: ['tenant', 'scope', 'ttl', 'subject'],
    details: `Development mode only (REVEILLE_AUTH=dev, SEC-5): signs a token with the key in REVEILLE_DATA_DIR.
  --tenant T     the tenant every request with the token acts in (required)
  --scope "S …"  space-separated scopes (default: every scope)
  --ttl SECONDS  lifetime, from 1 to 300 (default 300; the service refuses longer-lived tokens, SEC-1)
  --subject S    the calling service, the token's sub (default dev-cli)`,
  },
  {
    name: 'apply',
    summary: 'apply a definitions file to a running service',
    usage: 'reveille apply -f FILE [--url U] [--dry-run] [--tenant T]',
    options: ['file', 'url', 'dry-run', 'tenant'],
    details: `Writes the file's missions, then sources, then triggers through the HTTP API of a running service
and prints one line per definition: created, changed or unchanged (nothing is written for an unchanged
one, so re-running a file is safe). The file is
  { "missions": [ { "missionId", …PUT body } ], "sources": [ { "sourceId", … } ], "triggers": [ { "triggerId", … } ] }
without expectedRevision; source keys (secrets) never belong in it. A refused write stops with one line
naming the entry (e.g. triggers[2] (t-9): 422 invalid_definition …) and exit code 1; no service at the URL
(none answers, or GET {url}/health/live does not answer as Reveille after a 404) is one line and exit code 1.
  -f, --file FILE  the definitions file (JSON, at most 16 MiB)
  --url U          the service (default REVEILLE_URL, else http://127.0.0.1:$PORT)
  --dry-run        print the plan (would create / would change / unchanged) and write nothing
  --tenant T       development mode without REVEILLE_TOKEN: mint the token for tenant T (default acme)
The token is REVEILLE_TOKEN (scopes missions:write sources:write triggers:write operator:read); in development
mode without it, one is minted from the keys in REVEILLE_DATA_DIR.`,
  },
  {
    name: 'why',
    summary: 'say why an Occurrence ran or did not',
    usage: 'reveille why OCCURRENCE_ID [--url U] [--tenant T]',
    options: ['url', 'tenant'],
    takesArguments: true,
    details: `Reads the Occurrence from the operator API of a running service (OP-2) and prints its decision,
reason and evidence in plain words, e.g.
  suppressed: guard_false — /action equals "opened" was false
then what it was (kind, Trigger and revision, times, execution) and every evidence field. Exit 0 when the
Occurrence was found (whatever its decision), 1 when the service refuses or knows no such Occurrence
in the token's tenant, 2 for a malformed id or option.
  --url U          the service (default REVEILLE_URL, else http://127.0.0.1:$PORT)
  --tenant T       development mode without REVEILLE_TOKEN: mint the token for tenant T (default acme)
The token is REVEILLE_TOKEN (scope operator:read); in development mode without it, one is minted.`,
  },
  {
    name: 'projections rebuild',
    summary: 'rebuild read models from position 0',
    usage: 'reveille projections rebuild [--name N]',
    options: ['name'],
    details: `Folds the whole event log again into the read models (all of them, or --name N with its group).
On the embedded store it refuses while a server holds the data directory.`,
  },
  {
    name: 'audit verify',
    summary: "check the log's hash chains, invariants and read models",
    usage: 'reveille audit verify [--from P] [--json]',
    options: ['from', 'json'],
    details: `Reads the whole log in order (AU-2): every stream's hash chain and revisions, a replay of every stream
through the domain's folds and its invariants, and every read model rebuilt into a scratch schema and
compared with the live one. Prints progress and a summary; exit 1 on any violation, naming rule, stream
and position; 3 when no violation was found but some read model could not be compared (a service kept
folding); 2 when nothing could be checked (a usage error, no Reveille store there, migrations pending, store
unreachable, an embedded store a server holds, or the log stayed held back behind an open transaction for 30 s:
no report then), never 1; 0 when everything was checked and nothing was wrong.
Creates and migrates nothing.
  --from P   start at store position P (earlier revisions of the streams met are read as context)
  --json     the report as JSON on stdout`,
  },
  {
    name: 'scheduler',
    summary: 'run a schedule materializer alone',
    usage: 'reveille scheduler [--once] [--claim skip_locked|none] [--batch-size N]',
    options: ['once', 'claim', 'batch-size'],
    details: `Materializes due schedule instants beside or instead of serve (any number may race on PostgreSQL).
  --once            decide what is due now, print a JSON report, exit
  --claim           skip_locked (default) or none
  --batch-size N    Triggers per transaction, 1 to 5000
On the embedded store it refuses while a server holds the data directory.`,
  },
  {
    name: 'bench',
    summary: 'run a benchmark (the same as npm run bench)',
    usage: 'reveille bench <name> [options]',
    options: [],
    takesArguments: true,
    details: `Runs one benchmark in a process of its own and prints its figures beside a baseline measured in the same
run (raw PostgreSQL inserts, a SKIP LOCKED job queue, a COPY of the log …). The benchmarks start their own
service on PostgreSQL (DATABASE_URL, else 127.0.0.1:5432/test) in a fresh schema. Names: append, audit,
chaos, deliver, ingress, manual, poll, schedules, suppress; the options after the name are the benchmark's
own (e.g. reveille bench manual --seconds 8). BENCHMARKS.md records what they measured and on what.`,
  },
];

export function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: reveille <command> [options]\n\ncommands:\n${lines.join('\n')}\n
reveille <command> --help (or reveille help <command>) shows a command's options;
reveille --version prints the version.\n`;
}

/** The commands named `<word> …` (`audit verify` for `audit`): none when the word is no group. */
export const subcommandsOf = (word: string) => COMMANDS.filter((c) => c.name.startsWith(`${word} `));

export function groupHelp(word: string): string {
  const group = subcommandsOf(word);
  const width = Math.max(...group.map((c) => c.name.length));
  const lines = group.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: reveille ${word} <subcommand> [options]\n\nsubcommands:\n${lines.join('\n')}\n
reveille ${word} <subcommand> --help shows a subcommand's options.\n`;
}

export const commandHelp = (command: CommandUsage) => `usage: ${command.usage}\n\n${command.details}\n`;
