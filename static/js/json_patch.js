// RFC 6902 JSON Patch, applied atomically: the input document is never mutated and a failing
// operation leaves nothing half-applied (the caller keeps the old document and resyncs).

export class PatchError extends Error {
  constructor(message, op) {
    super(message);
    this.name = "PatchError";
    this.op = op;
  }
}

function parsePointer(pointer, op) {
  if (pointer === "") return [];
  if (typeof pointer !== "string" || pointer[0] !== "/") {
    throw new PatchError(`bad JSON pointer ${JSON.stringify(pointer)}`, op);
  }
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function isContainer(value) {
  return value !== null && typeof value === "object";
}

function arrayIndex(array, token, op, forAdd) {
  if (forAdd && token === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) {
    throw new PatchError(`bad array index ${JSON.stringify(token)}`, op);
  }
  const index = Number(token);
  const limit = forAdd ? array.length : array.length - 1;
  if (index > limit) throw new PatchError(`array index ${index} out of range`, op);
  return index;
}

function hasOwn(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key);
}

// The container holding the last token of the path, and that token.
function locate(doc, tokens, op) {
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) {
      node = node[arrayIndex(node, token, op, false)];
    } else if (isContainer(node) && hasOwn(node, token)) {
      node = node[token];
    } else {
      throw new PatchError(`path ${op.path} does not exist`, op);
    }
    if (!isContainer(node)) throw new PatchError(`path ${op.path} does not exist`, op);
  }
  return [node, tokens[tokens.length - 1]];
}

function getAt(doc, pointer, op) {
  const tokens = parsePointer(pointer, op);
  if (tokens.length === 0) return doc;
  const [parent, last] = locate(doc, tokens, op);
  if (Array.isArray(parent)) return parent[arrayIndex(parent, last, op, false)];
  if (!hasOwn(parent, last)) throw new PatchError(`path ${pointer} does not exist`, op);
  return parent[last];
}

// Each mutator returns the (possibly new) root document.
function addAt(doc, pointer, value, op) {
  const tokens = parsePointer(pointer, op);
  if (tokens.length === 0) return value;
  const [parent, last] = locate(doc, tokens, op);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, op, true), 0, value);
  else parent[last] = value;
  return doc;
}

function removeAt(doc, pointer, op) {
  const tokens = parsePointer(pointer, op);
  if (tokens.length === 0) throw new PatchError("cannot remove the whole document", op);
  const [parent, last] = locate(doc, tokens, op);
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(parent, last, op, false), 1);
  } else {
    if (!hasOwn(parent, last)) throw new PatchError(`path ${pointer} does not exist`, op);
    delete parent[last];
  }
  return doc;
}

function replaceAt(doc, pointer, value, op) {
  const tokens = parsePointer(pointer, op);
  if (tokens.length === 0) return value;
  const [parent, last] = locate(doc, tokens, op);
  if (Array.isArray(parent)) {
    parent[arrayIndex(parent, last, op, false)] = value;
  } else {
    if (!hasOwn(parent, last)) throw new PatchError(`path ${pointer} does not exist`, op);
    parent[last] = value;
  }
  return doc;
}

export function deepEqual(a, b) {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => hasOwn(b, key) && deepEqual(a[key], b[key]));
}

function applyOne(doc, op) {
  if (!isContainer(op) || typeof op.path !== "string") {
    throw new PatchError("operation needs an op and a path", op);
  }
  switch (op.op) {
    case "add":
      if (!hasOwn(op, "value")) throw new PatchError("add needs a value", op);
      return addAt(doc, op.path, structuredClone(op.value), op);
    case "remove":
      return removeAt(doc, op.path, op);
    case "replace":
      if (!hasOwn(op, "value")) throw new PatchError("replace needs a value", op);
      return replaceAt(doc, op.path, structuredClone(op.value), op);
    case "move": {
      if (typeof op.from !== "string") throw new PatchError("move needs from", op);
      if (op.from === op.path) return doc;
      if (op.path.startsWith(`${op.from}/`)) {
        throw new PatchError("cannot move a value into its own child", op);
      }
      const value = getAt(doc, op.from, op);
      return addAt(removeAt(doc, op.from, op), op.path, value, op);
    }
    case "copy": {
      if (typeof op.from !== "string") throw new PatchError("copy needs from", op);
      return addAt(doc, op.path, structuredClone(getAt(doc, op.from, op)), op);
    }
    case "test":
      if (!deepEqual(getAt(doc, op.path, op), op.value)) {
        throw new PatchError(`test failed at ${op.path}`, op);
      }
      return doc;
    default:
      throw new PatchError(`unknown op ${JSON.stringify(op.op)}`, op);
  }
}

export function applyPatch(doc, operations) {
  if (!Array.isArray(operations)) throw new PatchError("a patch is an array of operations");
  let result = structuredClone(doc);
  for (const op of operations) result = applyOne(result, op);
  return result;
}
