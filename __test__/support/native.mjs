// Helpers shared by the native specs (native*.spec.mjs): a small agent conversation as LangChain
// instances and in OpenAI chat-completions shape, and options that clear at once.

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

/** A small agent conversation in LangChain instances. */
export function lcHistory() {
  return [
    new SystemMessage('You are terse.'),
    new HumanMessage('read both files'),
    new AIMessage({
      content: 'reading',
      tool_calls: [
        { id: 'c1', name: 'read_file', args: { path: 'a.rs' } },
        { id: 'c2', name: 'read_file', args: { path: 'b.rs' } },
      ],
    }),
    new ToolMessage({ content: 'fn a() {}\n'.repeat(40), tool_call_id: 'c1', name: 'read_file' }),
    new ToolMessage({ content: 'fn b() {}\n'.repeat(40), tool_call_id: 'c2', name: 'read_file' }),
    new AIMessage({ content: '', tool_calls: [{ id: 'c3', name: 'search', args: { q: 'fn c' } }] }),
    new ToolMessage({ content: [{ type: 'text', text: 'no match '.repeat(30) }], tool_call_id: 'c3', name: 'search' }),
    new AIMessage('done'),
  ]
}

/** The same conversation in OpenAI chat-completions shape. */
export function openaiHistory() {
  return [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'read both files' },
    {
      role: 'assistant',
      content: 'reading',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.rs"}' } },
        { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.rs"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'fn a() {}\n'.repeat(40) },
    { role: 'tool', tool_call_id: 'c2', content: 'fn b() {}\n'.repeat(40) },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c3', type: 'function', function: { name: 'search', arguments: '{"q":"fn c"}' } }],
    },
    { role: 'tool', tool_call_id: 'c3', content: 'no match '.repeat(30) },
    { role: 'assistant', content: 'done' },
  ]
}

export const CLEAR_NOW = { trigger: { messages: 1 }, keep: { messages: 1 } }
