// Errors of the codec layer: a message of a known format that is malformed, or messages whose
// format cannot be told (each format named with the field that ruled it out).

import { ContextEditorError } from '../errors.js'

/** `INVALID_MESSAGE` for `messages[i].path`. */
export function invalid(i: number, path: string, what: string): ContextEditorError {
  return new ContextEditorError('INVALID_MESSAGE', `messages[${i}]${path ? `.${path}` : ''}: ${what}`, {
    messageIndex: i,
    ...(path ? { path } : {}),
  })
}
