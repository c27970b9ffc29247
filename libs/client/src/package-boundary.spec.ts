import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

/*
 * The client is at the bottom of the package graph and runs in browsers: its
 * sources (tests aside) import nothing but each other (no `node:` module, no
 * other @agent-ledger package, no npm package), and compile with the DOM's
 * types only, without Node's.
 */

const root = __dirname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

function importsOf(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    if (ts.isCallExpression(node) && node.arguments.length > 0 && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      const argument = node.arguments[0];
      found.push(argument !== undefined && ts.isStringLiteral(argument) ? argument.text : '<computed>');
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the client package boundary', () => {
  const files = sourceFiles(root);

  it('has sources', () => {
    expect(files.map((file) => relative(root, file))).toEqual(expect.arrayContaining(['index.ts', 'client.ts', 'contract/schema.ts']));
  });

  it('imports nothing outside its own folder', () => {
    const outside = files.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => !specifier.startsWith('./') && !specifier.startsWith('../'))
        .map((specifier) => `${relative(root, file)}: ${specifier}`),
    );
    const escaping = files.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith('.') && relative(root, join(file, '..', specifier)).startsWith('..'))
        .map((specifier) => `${relative(root, file)}: ${specifier}`),
    );
    expect([...outside, ...escaping]).toEqual([]);
  });

  it('finds an import from outside (the check itself can fail)', () => {
    expect(importsOf(join(root, 'package-boundary.spec.ts'))).toEqual(expect.arrayContaining(['node:fs', 'typescript']));
  });

  it('compiles for a browser: the DOM library, no Node types', () => {
    const config = ts.readConfigFile(join(root, '..', 'tsconfig.json'), (path) => ts.sys.readFile(path));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, join(root, '..'));
    expect(parsed.options.types).toEqual([]);
    expect(parsed.options.lib).toEqual(expect.arrayContaining(['lib.dom.d.ts']));
    const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
    expect(parsed.fileNames.some((name) => name.endsWith('.spec.ts'))).toBe(false);
  });
});
