/**
 * @generated SignedSource<<83e7acdcdc84967980b0264b521b5383>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type operationsSnippetsQuery$variables = Record<PropertyKey, never>;
export type operationsSnippetsQuery$data = {
  readonly savedSnippets: ReadonlyArray<{
    readonly id: string;
    readonly title: string;
  }> | null | undefined;
};
export type operationsSnippetsQuery = {
  response: operationsSnippetsQuery$data;
  variables: operationsSnippetsQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "alias": null,
    "args": null,
    "concreteType": "SavedSnippet",
    "kind": "LinkedField",
    "name": "savedSnippets",
    "plural": true,
    "selections": [
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "id",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "title",
        "storageKey": null
      }
    ],
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": [],
    "kind": "Fragment",
    "metadata": null,
    "name": "operationsSnippetsQuery",
    "selections": (v0/*:: as any*/),
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "operationsSnippetsQuery",
    "selections": (v0/*:: as any*/)
  },
  "params": {
    "cacheID": "6497e5b41ce014043575645b7ef272ac",
    "id": null,
    "metadata": {},
    "name": "operationsSnippetsQuery",
    "operationKind": "query",
    "text": "query operationsSnippetsQuery {\n  savedSnippets {\n    id\n    title\n  }\n}\n"
  }
};
})();

(node as any).hash = "eb85a22b48cb2d166f42333fb561aae7";

export default node;
