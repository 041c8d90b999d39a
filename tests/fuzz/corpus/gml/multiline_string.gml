graph [
 node [ id 1 label "first
second" ]
]
