/**
 * `clock` reads the time; `writer` writes a file (pre-approved: it runs, one
 * audit record); `approver` appends to a file (not pre-approved: the run
 * waits for a decision; a denial ends it); `asker` asks a person (the run
 * waits for input).
 */
export const API_TEST_AGENTS_YAML = `agents:
  - name: clock
    description: Tells the time.
    instructions: Tell the time.
    tools: [clock.now]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: clock.now
        - final: tick
  - name: writer
    instructions: Write a report.
    tools: [files.write]
    approvals: { preApproved: [files.write] }
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.write
              arguments: { path: report.txt, content: "report" }
        - final: written
  - name: approver
    instructions: Append a line.
    tools: [files.append]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: files.append
              arguments: { path: log.txt, content: "a line\\n" }
        - final: appended
  - name: asker
    instructions: Ask, then answer.
    tools: [user.ask]
    maxIterations: 3
    provider:
      type: scripted
      script:
        - toolCalls:
            - tool: user.ask
              arguments: { question: "Which file?" }
        - final: got it
`;
