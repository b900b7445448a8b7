import { removeTree } from "../../../src/core/remove-tree.js";

/** Removes the tree named by the first argument, for a run as an ordinary user (not root). */
removeTree(process.argv[2] ?? "");
