// Pallium's workflow prelude: determinism guards, then the host API, installed before the script.
// `__pallium_host(requestJson)` ({op, payload}) is the one door to Python; it answers a JSON envelope
// {ok, value} or {ok: false, error, fatal}. `__pallium_config` carries args and the budget.
(function () {
  "use strict";
  const host = globalThis.__pallium_host;
  const config = JSON.parse(globalThis.__pallium_config);
  delete globalThis.__pallium_host;
  delete globalThis.__pallium_config;

  const lock = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
  const denied = (what) => {
    throw new Error(`${what} is disabled in Pallium workflow scripts; pass nondeterministic values through args`);
  };

  // ---- determinism guards: time, randomness, timers and GC-dependent objects leave the sandbox
  const RealDate = Date;
  function GuardedDate(...parts) {
    if (!new.target) denied("Date()");
    if (parts.length === 0) denied("new Date()");
    return Reflect.construct(RealDate, parts, new.target);
  }
  GuardedDate.prototype = RealDate.prototype;
  GuardedDate.parse = RealDate.parse;
  GuardedDate.UTC = RealDate.UTC;
  GuardedDate.now = () => denied("Date.now()");
  Object.defineProperty(RealDate.prototype, "constructor", { value: GuardedDate, writable: false, configurable: false });
  Object.freeze(GuardedDate);
  lock("Date", GuardedDate);
  Object.defineProperty(Math, "random", { value: () => denied("Math.random()"), writable: false, configurable: false });
  Object.freeze(Math);

  const RealDateTimeFormat = Intl.DateTimeFormat;
  function GuardedDateTimeFormat(...options) {
    const inner = new RealDateTimeFormat(...options);
    const needsDate = (name, fn) => (...a) => (a.length === 0 || a[0] === undefined ? denied(`Intl.DateTimeFormat().${name}() without a date`) : fn(...a));
    return Object.freeze({
      format: needsDate("format", (d) => inner.format(d)),
      formatToParts: needsDate("formatToParts", (d) => inner.formatToParts(d)),
      formatRange: (a, b) => inner.formatRange(a, b),
      resolvedOptions: () => inner.resolvedOptions(),
    });
  }
  Object.defineProperty(Intl, "DateTimeFormat", { value: GuardedDateTimeFormat, writable: false, configurable: false });
  Object.freeze(Intl);
  if (typeof Temporal !== "undefined") {
    delete Temporal.Now;
    Object.freeze(Temporal);
  }
  for (const name of [
    "setTimeout", "clearTimeout", "setInterval", "clearInterval", "__timer_manager", "SharedArrayBuffer",
    "Atomics", "WebAssembly", "WeakRef", "FinalizationRegistry", "eval",
  ]) {
    // mini-racer installs its timers non-configurable but writable: blank those instead.
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);
    if (descriptor === undefined) continue;
    if (descriptor.configurable) delete globalThis[name];
    else Object.defineProperty(globalThis, name, { value: undefined, writable: false });
  }

  // ---- the host API
  const budgetState = { total: config.budget_total, spent: config.budget_spent };
  // phase(name, fn) scopes: the innermost one still running names the phase; concurrent scopes
  // (phase inside parallel) each leave only their own entry, so none outlives its fn.
  let basePhase = "default";
  const scopes = [];
  const phaseNow = () => (scopes.length ? scopes[scopes.length - 1].name : basePhase);
  const message = (err) => String(err && err.message !== undefined ? err.message : err);

  const call = async (op, payload) => {
    const reply = JSON.parse(await host(JSON.stringify({ op, payload: payload === undefined ? null : payload })));
    if (reply.budget) {
      budgetState.spent = reply.budget.spent;
      budgetState.total = reply.budget.total;
    }
    if (!reply.ok) {
      const error = new Error(reply.error);
      if (reply.fatal) Object.defineProperty(error, "fatal", { value: true });
      throw error;
    }
    return reply.value;
  };
  // ---- the rejection tracker, as V8's: a promise that rejected with no handler attached by the
  // end of the run is a failure, whatever chain it sits in. Every promise a script can hold is a
  // Tracked: host calls, what `.then`/`.catch`/`.finally` derive from them (species), `Promise.*`
  // combinators and `new Promise` (the global is Tracked), and what the script's own async functions
  // return (the engine wraps them in __pallium_async). `then` is how every handler attaches (await
  // included, as a Tracked is not the intrinsic Promise), so a `then` call marks it handled.
  const NativePromise = Promise;
  const nativeThen = NativePromise.prototype.then;
  const unhandled = new Map(); // promise -> {op, what, error}
  const tracking = new WeakMap(); // promise -> {op, what, handled}
  let internal = false; // the tracker's own reactions are not promises of the script
  let nextLabel = null; // the name a promise about to be made takes: {op, what}
  let settled = 0; // how many tracked promises have settled: still moving while this grows
  class Tracked extends NativePromise {
    constructor(executor) {
      super(executor);
      if (internal) return;
      const label = nextLabel || { op: "promise", what: "a promise" };
      nextLabel = null;
      const entry = { op: label.op, what: label.what, handled: false };
      tracking.set(this, entry);
      internal = true;
      try {
        nativeThen.call(this, () => { settled += 1; }, (err) => {
          settled += 1;
          if (!entry.handled) unhandled.set(this, { op: entry.op, what: entry.what, error: message(err) });
        });
      } finally {
        internal = false;
      }
    }
    then(onFulfilled, onRejected) {
      const entry = tracking.get(this);
      if (entry !== undefined) {
        entry.handled = true;
        unhandled.delete(this); // handled late: V8's "rejectionhandled"
        if (!internal) {
          const how = typeof onRejected === "function" ? "" : ".then()";
          nextLabel = { op: entry.op, what: `${entry.what}${how}` };
        }
      }
      try {
        return super.then(onFulfilled, onRejected);
      } finally {
        nextLabel = null;
      }
    }
    static get [Symbol.species]() {
      return Tracked;
    }
  }
  for (const name of ["all", "allSettled", "any", "race"]) {
    const combinator = NativePromise[name];
    Object.defineProperty(Tracked, name, {
      value(items) {
        nextLabel = { op: "promise", what: `Promise.${name}([...])` };
        try {
          return combinator.call(this, items);
        } finally {
          nextLabel = null;
        }
      },
      writable: false,
      configurable: false,
    });
  }
  // A native promise (an async function's) followed by a tracked one the script holds instead.
  const follow = (promise, op, what) => {
    nextLabel = { op, what };
    return new Tracked((resolve, reject) => {
      internal = true;
      try {
        nativeThen.call(promise, resolve, reject);
      } finally {
        internal = false;
      }
    });
  };
  const asyncWrapper = (fn, name) => {
    const what = `async function ${name || fn.name || "(anonymous)"}()`;
    return function (...given) {
      const returned = fn.apply(this, given);
      return returned instanceof Tracked ? returned : follow(returned, "async", what);
    };
  };
  Object.defineProperty(globalThis, "Promise", { value: Tracked, writable: false, configurable: false });
  lock("__pallium_async", asyncWrapper);
  const tracked = (op, payload, what) => follow(call(op, payload), op, what);
  const options = (opts, what) => {
    if (opts === undefined || opts === null) return {};
    if (typeof opts !== "object" || Array.isArray(opts)) throw new TypeError(`${what}: options must be an object`);
    return opts;
  };
  const recordFailure = async (primitive, index, stage, err) => {
    if (err && err.fatal) throw err;
    await call("failure", { primitive, index, stage, phase: phaseNow(), error: message(err) });
    return null;
  };
  const checkItems = (items, what) => {
    if (!Array.isArray(items)) throw new TypeError(`${what}: items must be an array`);
    if (items.length > 4096) throw new RangeError(`${what}: at most 4096 items, got ${items.length}`);
  };

  lock("args", Object.freeze(config.args));
  lock("agent", (prompt, opts) => {
    // `phase` as an option (the original's scripts pass it) labels this one call.
    const { phase: own, ...rest } = options(opts, "agent");
    const label = rest.label ? String(rest.label) : JSON.stringify(String(prompt).slice(0, 60));
    return tracked("agent", { prompt: String(prompt), opts: rest, phase: own === undefined ? phaseNow() : String(own) },
      `agent ${label}`);
  });
  lock("check", (command, opts) =>
    tracked("check", { command: String(command), opts: options(opts, "check"), phase: phaseNow() },
      `check ${JSON.stringify(String(command).slice(0, 60))}`));
  lock("gate", (name, prompt, opts) =>
    tracked("gate", { name: String(name), prompt: String(prompt), opts: options(opts, "gate"), phase: phaseNow() },
      `gate ${JSON.stringify(String(name))}`));
  lock("workflow", (name, workflowArgs) =>
    tracked("workflow", { name: String(name), args: workflowArgs ?? null }, `workflow ${JSON.stringify(String(name))}`));
  lock("verify", Object.freeze({
    untilGreen: (command, opts) =>
      tracked("verify.untilGreen",
        { command: String(command), opts: options(opts, "verify.untilGreen"), phase: phaseNow() },
        `verify.untilGreen ${JSON.stringify(String(command).slice(0, 60))}`),
  }));
  lock("log", (...parts) => {
    const text = parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ");
    return follow(call("log", { message: text, phase: phaseNow() }), "log", "log()");
  });
  lock("phase", (name, fn) => {
    const named = name === undefined ? "default" : String(name);
    if (fn === undefined) {
      // phase(name) alone names what follows: in the innermost running scope, or the script itself
      if (scopes.length) scopes[scopes.length - 1].name = named;
      else basePhase = named;
      return undefined;
    }
    const scope = { name: named };
    scopes.push(scope);
    const leave = () => {
      const at = scopes.lastIndexOf(scope);
      if (at >= 0) scopes.splice(at, 1);
    };
    let result;
    try {
      result = fn();
    } catch (err) {
      leave();
      throw err;
    }
    if (result && typeof result.then === "function") return Promise.resolve(result).finally(leave);
    leave();
    return result;
  });
  lock("budget", Object.freeze({
    get total() { return budgetState.total; },
    spent: () => budgetState.spent,
    remaining: () => (budgetState.total === null ? null : Math.max(0, budgetState.total - budgetState.spent)),
  }));
  const hostAsync = (name, fn) => (...given) => follow(fn(...given), name, `${name}()`);
  lock("parallel", hostAsync("parallel", async (items, fn) => {
    checkItems(items, "parallel");
    return Promise.all(items.map(async (item, index) => {
      try {
        if (fn !== undefined) return await fn(item, index);
        if (typeof item === "function") return await item();
        return await item;
      } catch (err) {
        return recordFailure("parallel", index, null, err);
      }
    }));
  }));
  lock("pipeline", hostAsync("pipeline", async (items, ...stages) => {
    checkItems(items, "pipeline");
    // Each item runs through every stage on its own: a fast item never waits for a slow one.
    return Promise.all(items.map(async (item, index) => {
      let value = item;
      for (let stage = 0; stage < stages.length; stage++) {
        try {
          value = await stages[stage](value, item, index);
        } catch (err) {
          return recordFailure("pipeline", index, stage, err);
        }
      }
      return value;
    }));
  }));
  const helper = (name) => (...helperArgs) =>
    tracked("pallium", { helper: name, args: helperArgs, phase: phaseNow() }, `pallium.${name}()`);
  // decisions.search answers {query, decisions, ...}; the original answered a bare array. The script
  // gets the array, carrying the object's fields too, so `found.length` and `found.decisions` both work.
  const searchDecisions = hostAsync("pallium.decisions.search", async (...helperArgs) => {
    const found = await helper("decisions.search")(...helperArgs);
    return Object.assign(found.decisions.slice(), found);
  });
  const teamCall = (fn) => (...teamArgs) =>
    follow(call("team", { fn, args: teamArgs, phase: phaseNow() }), "team", `team.${fn}()`);
  lock("team", Object.freeze({
    create: teamCall("create"), spawn: teamCall("spawn"), send: teamCall("send"), status: teamCall("status"),
    wait: teamCall("wait"), stop: teamCall("stop"), approve: teamCall("approve"), reject: teamCall("reject"),
    gate: teamCall("gate"),
    tasks: Object.freeze({
      create: teamCall("tasks.create"), list: teamCall("tasks.list"), claim: teamCall("tasks.claim"),
      complete: teamCall("tasks.complete"),
    }),
    member: Object.freeze({
      stop: teamCall("member.stop"), restart: teamCall("member.restart"), steer: teamCall("member.steer"),
    }),
  }));
  lock("pallium", Object.freeze({
    changedNow: helper("changedNow"),
    preflight: helper("preflight"),
    explain: helper("explain"),
    risk: helper("risk"),
    neighbors: helper("neighbors"),
    handoff: helper("handoff"),
    review: helper("review"),
    safe: helper("safe"),
    plan: helper("plan"),
    task: Object.freeze({ start: helper("task.start"), show: helper("task.show"), clear: helper("task.clear") }),
    decisions: Object.freeze({ record: helper("decisions.record"), search: searchDecisions }),
  }));
  // what the engine asks once the script returned: the rejections no handler observed, and how
  // many promises have settled so far (it waits while that still grows: a long chain of `.then`)
  return (ask) => (ask === "settled" ? settled : JSON.stringify([...unhandled.values()]));
})();
