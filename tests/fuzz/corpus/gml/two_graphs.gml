graph [
 node [ id 1 ]
]
graph [
 node [ id 2 ]
]
