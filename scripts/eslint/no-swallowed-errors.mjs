// @ts-check
/**
 * `immoreel/no-swallowed-errors` (docs/contributing.md "Lint"): in the job layer and the records,
 * an error that is caught must be rethrown, reported (a call of a reporter, logger or `reject`),
 * turned into an answer (`return`), or carried on as data (the caught error is used: an outcome
 * that holds it). A catch that does none of these — `catch {}`,
 * `.catch(() => undefined)` — hides a failure nobody will ever see: a job left running with no
 * word of why (docs/jobs.md "Failures the job layer survives").
 *
 * A failure that is deliberately left out says why, in a comment that starts with `Ignored:` right
 * above the statement holding the catch (or inside the handler): e.g. closing a pool whose first
 * connection failed, while that connection's error is what is thrown.
 */

/** The comment that lets a catch drop its error: `// Ignored: <why>`. */
const IGNORED = /^\s*Ignored: \S/;

/** Calls that tell someone: the pool's `report`, a logger's levels, a promise's `reject`, Node's warnings. */
const TELLS = /^(report|warn|error|info|debug|log|emitWarning|reject|fail|onError|onWarning|abort|tell\w*)$/;

/** @param {import('estree').Node} node @param {(node: import('estree').Node) => boolean} found */
function contains(node, found) {
  /** @type {import('estree').Node[]} */
  const stack = [node];
  while (stack.length > 0) {
    const current = /** @type {import('estree').Node} */ (stack.pop());
    if (found(current)) return true;
    for (const [key, value] of Object.entries(current)) {
      if (key === 'parent') continue;
      // A function defined in the handler runs later, if ever: what it does is not the handler's answer.
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child !== null && typeof child === 'object' && typeof child.type === 'string' && !/Function/.test(child.type))
          stack.push(child);
      }
    }
  }
  return false;
}

/** @param {import('estree').Node} node */
function answers(node) {
  if (node.type === 'ThrowStatement' || node.type === 'ReturnStatement') return true;
  if (node.type !== 'CallExpression') return false;
  const callee = node.callee;
  const name =
    callee.type === 'Identifier'
      ? callee.name
      : callee.type === 'MemberExpression' && callee.property.type === 'Identifier'
        ? callee.property.name
        : '';
  return TELLS.test(name);
}

/** @param {import('estree').Expression} body */
function isNothing(body) {
  return (body.type === 'Identifier' && body.name === 'undefined') || (body.type === 'UnaryExpression' && body.operator === 'void');
}

/** @param {import('estree').Pattern | null | undefined} param */
function uses(param) {
  const name = param?.type === 'Identifier' ? param.name : null;
  /** @param {import('estree').Node} node */
  return (node) => name !== null && node.type === 'Identifier' && node.name === name;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noSwallowedErrors = {
  meta: {
    type: 'problem',
    docs: { description: 'a caught error is rethrown, reported or answered, never dropped' },
    messages: {
      swallowed:
        'This catch drops the error: rethrow it, report it (report/log/warn…), return what it means, or say why it is dropped (`// Ignored: <why>` above it). A failure nobody sees is a job nobody can explain.',
    },
    schema: [],
  },
  create(context) {
    const source = context.sourceCode;
    /** Whether the handler, or the statement that holds it, carries an `Ignored: <why>` comment. */
    const saysWhy = (/** @type {import('eslint').Rule.Node} */ node) => {
      if (source.getCommentsInside(node).some((c) => IGNORED.test(c.value))) return true;
      /** @type {import('eslint').Rule.Node | null} */
      let statement = node;
      while (statement !== null && !/Statement|Declaration/.test(statement.type)) statement = statement.parent;
      return statement !== null && source.getCommentsBefore(statement).some((c) => IGNORED.test(c.value));
    };
    return {
      CatchClause(node) {
        const carried = uses(node.param);
        if (!contains(node.body, (n) => answers(n) || carried(n)) && !saysWhy(node)) context.report({ node, messageId: 'swallowed' });
      },
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier' || callee.property.name !== 'catch') return;
        const handler = node.arguments[0];
        if (handler === undefined || (handler.type !== 'ArrowFunctionExpression' && handler.type !== 'FunctionExpression')) return;
        const body = handler.body;
        const carried = uses(handler.params[0]);
        const dropped = body.type === 'BlockStatement' ? !contains(body, (n) => answers(n) || carried(n)) : isNothing(body);
        if (dropped && !saysWhy(/** @type {import('eslint').Rule.Node} */ (handler)))
          context.report({ node: handler, messageId: 'swallowed' });
      },
    };
  },
};

export default { rules: { 'no-swallowed-errors': noSwallowedErrors } };
