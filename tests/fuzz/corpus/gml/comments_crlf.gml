# a comment
graph [
  # nodes
  node [ id 1 ] # trailing
  node [ id 2 ]
  edge [ source 1 target 2 ]
]
