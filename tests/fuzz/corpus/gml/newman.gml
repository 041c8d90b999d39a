Creator "Mark Newman on Fri Jul 21 12:44:53 2006"
graph
[
  directed 0
  node
  [
    id 0
    label "Myriel"
  ]
  node
  [
    id 1
    label "Napoleon"
  ]
  node [ id 7 label "Alone [not linked]" ]
  edge
  [
    source 1
    target 0
    value 2.5
  ]
]
