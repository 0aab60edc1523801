// What a *-snippet may hold until a real nginx parser exists: simple directives `name args;` only, never a character
// that changes nginx's parse outside the snippet's block, nor a directive that loads code, touches files or picks upstreams.

/** Longest snippet accepted (characters). */
export const SNIPPET_MAX = 65_536;

const LATER = 'the snippet parser of the compatibility issue will allow more';

/** Characters refused anywhere, with why: each can end the snippet's block or hide what follows from the brace count. */
const CHARACTERS: readonly (readonly [RegExp, string])[] = [
  [/\$\{/, '"${" (a variable in braces)'],
  [/[{}]/, 'a brace (it opens or closes a block outside the snippet\'s own)'],
  [/["']/, 'a quote (a quoted brace or ";" is hidden from this check)'],
  [/#/, '"#" (a comment hides the rest of its line from this check)'],
  [/\\/, 'a backslash (it escapes a brace, quote or ";")'],
  [/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, 'a control character (only newline and tab are allowed)'],
];

/** Directive names refused, with why. */
const DIRECTIVES: readonly (readonly [RegExp, string])[] = [
  [/_by_lua|^lua_|^perl|^js_|^load_module$|^include$/, 'loads or runs code'],
  [/^(env|user|pid|lock_file|working_directory|daemon|master_process|thread_pool|worker_\w+)$/, 'changes the nginx process'],
  [/(_file|_temp_path|_cache_path|_certificate|_certificate_key|_crl|_dhparam|_ticket_key)$|^ssl_certificate|^geoip/, 'reads or writes a file'],
  [/^(root|alias|try_files|index|random_index|autoindex\w*|ssi\w*|xslt_\w+|dav_\w+|create_full_put_path|min_delete_depth)$/, 'serves or changes local files'],
  [/_store(_access)?$/, 'stores responses in local files'],
  [/^(access_log|error_log|open_log_file_cache|log_format)$/, 'writes a log file'],
  [/_pass$/, 'picks an upstream (a unix socket or Portico\'s own ports would bypass the target policy); name backends in the Ingress'],
];

function at(text: string, index: number): string {
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  return `line ${line}, column ${index - before.lastIndexOf('\n')}`;
}

/** Pure: why nginx must not see `text` as a snippet, or undefined when it may. */
export function snippetRefusal(text: string): string | undefined {
  const refuse = (what: string): string => `snippet refused: ${what}; until then, snippets hold only simple directives ` +
    `"name args;" (${LATER})`;
  if (text.length > SNIPPET_MAX) return refuse(`it is longer than ${SNIPPET_MAX} characters`);
  // The first offending character in the text, so the message points where the user looks first.
  const found = CHARACTERS.map(([re, why]) => ({ index: re.exec(text)?.index ?? Infinity, why }))
    .reduce((a, b) => (b.index < a.index ? b : a));
  if (found.index !== Infinity) return refuse(`${found.why} at ${at(text, found.index)}`);
  if (text.trim() !== '' && !text.trimEnd().endsWith(';')) return refuse('it does not end with ";" (its last directive would swallow the next line Portico writes)');
  const own = /\$portico_/i.exec(text);
  if (own) return refuse(`it names Portico's own variable at ${at(text, own.index)} (it picks the backend and the log line)`);
  let offset = 0;
  for (const statement of text.split(';')) {
    const start = offset + statement.length - statement.trimStart().length;
    offset += statement.length + 1;
    const name = statement.trim().split(/\s+/)[0] ?? '';
    if (name === '') continue;
    if (!/^[a-z][a-z0-9_]*$/.test(name)) return refuse(`${JSON.stringify(name.slice(0, 40))} at ${at(text, start)} is not a directive name`);
    const hit = DIRECTIVES.find(([re]) => re.test(name));
    if (hit) return refuse(`directive ${name} at ${at(text, start)} ${hit[1]}`);
  }
  return undefined;
}
