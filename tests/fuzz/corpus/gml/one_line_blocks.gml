graph [ directed 1
  node [ id 10 graphics [ x 1.0 y 2.0 ] ] node [ id 20 ]
  node [ id 30 ]
  edge [ source 10 target 20 value 3 weight 4 ] edge [ source 20
    target 30 graphics [ width 2 ] ]
  edge [ source 30 target 30 ]
  edge [ source 30 target 10 value 0.5 ]
]
