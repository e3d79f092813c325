// The client's copy of one room's state document: snapshots replace it, patches advance it.
// Views subscribe and redraw from it; nothing else holds game state.

import { applyPatch, PatchError } from "./json_patch.js";

export class Store {
  constructor() {
    this.version = null;
    this.state = null;
    this.listeners = new Set();
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify() {
    for (const listener of this.listeners) listener(this.state, this.version);
  }

  applySnapshot(version, state) {
    this.version = version;
    this.state = state;
    this.notify();
  }

  // Returns false when the patch does not follow the held version (or does not apply):
  // the caller then asks the server for a snapshot.
  applyPatch(from, version, operations) {
    if (this.state === null || from !== this.version) return false;
    try {
      this.state = applyPatch(this.state, operations);
    } catch (error) {
      if (error instanceof PatchError) return false;
      throw error;
    }
    this.version = version;
    this.notify();
    return true;
  }

  clear() {
    this.version = null;
    this.state = null;
    this.notify();
  }
}
