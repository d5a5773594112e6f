/**
 * @generated SignedSource<<9d08ffeab6cfd7ed9ff132d64bcd0f90>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type operationsDeferredQuery$variables = Record<PropertyKey, never>;
export type operationsDeferredQuery$data = {
  readonly me: {
    readonly id: string;
  } | null | undefined;
  readonly " $fragmentSpreads": FragmentRefs<"operations_channels">;
};
export type operationsDeferredQuery = {
  response: operationsDeferredQuery$data;
  variables: operationsDeferredQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
},
v1 = {
  "alias": null,
  "args": null,
  "concreteType": "Me",
  "kind": "LinkedField",
  "name": "me",
  "plural": false,
  "selections": [
    (v0/*:: as any*/)
  ],
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": [],
    "kind": "Fragment",
    "metadata": null,
    "name": "operationsDeferredQuery",
    "selections": [
      (v1/*:: as any*/),
      {
        "kind": "Defer",
        "selections": [
          {
            "args": null,
            "kind": "FragmentSpread",
            "name": "operations_channels"
          }
        ]
      }
    ],
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "operationsDeferredQuery",
    "selections": [
      (v1/*:: as any*/),
      {
        "if": null,
        "kind": "Defer",
        "label": "operationsDeferredQuery$defer$operations_channels",
        "selections": [
          {
            "alias": null,
            "args": null,
            "concreteType": "Channel",
            "kind": "LinkedField",
            "name": "channels",
            "plural": true,
            "selections": [
              (v0/*:: as any*/),
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "name",
                "storageKey": null
              }
            ],
            "storageKey": null
          }
        ]
      }
    ]
  },
  "params": {
    "cacheID": "b5291dd3461ace25290500f82955184e",
    "id": null,
    "metadata": {},
    "name": "operationsDeferredQuery",
    "operationKind": "query",
    "text": "query operationsDeferredQuery {\n  me {\n    id\n  }\n  ...operations_channels @defer(label: \"operationsDeferredQuery$defer$operations_channels\")\n}\n\nfragment operations_channels on Query {\n  channels {\n    id\n    name\n  }\n}\n"
  }
};
})();

(node as any).hash = "cc6b6b27ebb4cff90d061725ac43004f";

export default node;
