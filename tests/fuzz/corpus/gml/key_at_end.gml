graph [
 node [ id 1 ]
 edge
